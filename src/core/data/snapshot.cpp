#include "gpusel/data/snapshot.hpp"

#include "gpusel/base/text.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/json/embedded.hpp"
#include "snapshot_fields.hpp"

namespace gpusel {
namespace {

constexpr const char* kFiles[] = {"data/gpus.json", "data/cloud.json", "data/models.json"};
constexpr const char* kOrigins[] = {"embedded data/gpus.json", "embedded data/cloud.json",
                                    "data/models.json"};

[[noreturn]] void malformed() {
  throw data_error("the embedded data snapshot is malformed; rebuild gpusel");
}

}  // namespace

ShippedData shipped_from_json() {
  ShippedData d;
  d.catalog = catalog_from_text(std::string(embedded_text(kFiles[0])), kOrigins[0]);
  d.cloud = cloud_from_text(embedded_text(kFiles[1]), kOrigins[1], false, &d.catalog);
  d.models = models_from_text(embedded_text(kFiles[2]), kOrigins[2]);
  return d;
}

std::string encode_snapshot(const ShippedData& data) {
  std::string out(snapshot::kMagic);
  snapshot::add_section(out, kFiles[0], data.catalog);
  snapshot::add_section(out, kFiles[1], data.cloud);
  snapshot::add_section(out, kFiles[2], data.models);
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

}  // namespace gpusel
