#include "gpusel/data/snapshot.hpp"

#include "gpusel/base/text.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "snapshot_fields.hpp"

namespace gpusel {
namespace {

// The shipped files in the snapshot (rank/ adds data/rules.json), and their origins as the
// loaders name them.
constexpr const char* kFiles[] = {"data/gpus.json", "data/cloud.json", "data/models.json",
                                  "data/platforms.json", "data/quantizations.json"};
constexpr const char* kOrigins[] = {"embedded data/gpus.json", "embedded data/cloud.json",
                                    "data/models.json", "data/platforms.json",
                                    "data/quantizations.json"};

[[noreturn]] void malformed() {
  throw data_error("the embedded data snapshot is malformed; rebuild gpusel");
}

}  // namespace

ShippedData shipped_from_json() {
  ShippedData d;
  d.catalog = catalog_from_text(std::string(embedded_text(kFiles[0])), kOrigins[0]);
  d.cloud = cloud_from_text(embedded_text(kFiles[1]), kOrigins[1], false, &d.catalog);
  d.models = models_from_text(embedded_text(kFiles[2]), kOrigins[2]);
  d.platforms = platforms_from_text(embedded_text(kFiles[3]), kOrigins[3]);
  const nlohmann::json quantizations =
      parse_json_text(std::string(embedded_text(kFiles[4])), kOrigins[4]);
  require_schema(embedded_json("data/schema/quantizations.schema.json"), quantizations,
                 kOrigins[4]);
  d.quantizations = parse_quantizations(quantizations, kOrigins[4]);
  return d;
}

std::string encode_snapshot(const ShippedData& data) {
  std::string out(snapshot::kMagic);
  snapshot::add_section(out, kFiles[0], data.catalog);
  snapshot::add_section(out, kFiles[1], data.cloud);
  snapshot::add_section(out, kFiles[2], data.models);
  snapshot::add_section(out, kFiles[3], data.platforms);
  snapshot::add_section(out, kFiles[4], data.quantizations);
  return out;
}

std::optional<snapshot::Reader> snapshot::find_section(std::string_view snapshot,
                                                       std::string_view file) {
  if (snapshot.empty()) return std::nullopt;
  if (!snapshot.starts_with(kMagic)) malformed();
  Reader in(snapshot.substr(kMagic.size()), {});
  while (!in.done()) {
    std::string name;
    std::uint64_t text_size = 0, bytes = 0;
    in(name, text_size, bytes);
    const std::string_view records = in.take(bytes);
    if (name != file) continue;
    const std::string_view document = embedded_text(file);
    if (text_size != document.size()) return std::nullopt;
    return Reader(records, document);
  }
  return std::nullopt;
}

std::optional<Catalog> snapshot_catalog(std::string_view snapshot) {
  Catalog c;
  if (!snapshot::read_section(snapshot, kFiles[0], c)) return std::nullopt;
  c.origin = kOrigins[0];
  c.reindex();
  return c;
}

std::optional<Cloud> snapshot_cloud(std::string_view snapshot) {
  Cloud c;
  if (!snapshot::read_section(snapshot, kFiles[1], c)) return std::nullopt;
  c.origin = kOrigins[1];
  c.reindex();
  return c;
}

std::optional<std::vector<ModelArch>> snapshot_models(std::string_view snapshot) {
  std::vector<ModelArch> models;
  if (!snapshot::read_section(snapshot, kFiles[2], models)) return std::nullopt;
  return models;
}

std::optional<Platforms> snapshot_platforms(std::string_view snapshot) {
  Platforms p;
  if (!snapshot::read_section(snapshot, kFiles[3], p)) return std::nullopt;
  return p;
}

std::optional<Quantizations> snapshot_quantizations(std::string_view snapshot) {
  Quantizations q;
  if (!snapshot::read_section(snapshot, kFiles[4], q)) return std::nullopt;
  return q;
}

}  // namespace gpusel
