#include "gpusel/data/snapshot.hpp"

#include "gpusel/base/text.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/json/embedded.hpp"
#include "snapshot_fields.hpp"

namespace gpusel {
namespace {

// The snapshot: a magic line, then one section per shipped file in this order, each the size
// of the JSON text it was made from (a GPU's raw record is a place in that text), the size of
// its records' bytes, and those bytes.
constexpr std::string_view kMagic = "gpusel snapshot 1\n";
constexpr const char* kFiles[] = {"data/gpus.json", "data/cloud.json", "data/models.json"};
constexpr const char* kOrigins[] = {"embedded data/gpus.json", "embedded data/cloud.json",
                                    "data/models.json"};

template <typename T>
void add_section(std::string& out, std::size_t file, const T& records) {
  snapshot::Writer sizes;
  snapshot::Writer body;
  body(records);
  std::string bytes = body.take();
  sizes(std::uint64_t{embedded_text(kFiles[file]).size()}, std::uint64_t{bytes.size()});
  out += sizes.take();
  out += bytes;
}

// Section `file` of a snapshot read into `records`; false when the snapshot is empty or was
// made from a text of another size than this build embeds.
template <typename T>
bool read_section(std::string_view snapshot, std::size_t file, T& records) {
  if (snapshot.empty()) return false;
  if (!snapshot.starts_with(kMagic))
    throw data_error("the embedded data snapshot is malformed; rebuild gpusel");
  snapshot::Reader in(snapshot.substr(kMagic.size()), {});
  std::uint64_t text_size = 0, bytes = 0;
  for (std::size_t i = 0; i <= file; ++i) {
    in(text_size, bytes);
    if (i < file) in.take(bytes);
  }
  const std::string_view document = embedded_text(kFiles[file]);
  if (text_size != document.size()) return false;
  snapshot::Reader body(in.take(bytes), document);
  body(records);
  if (!body.done()) throw data_error("the embedded data snapshot is malformed; rebuild gpusel");
  return true;
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
  std::string out(kMagic);
  add_section(out, 0, data.catalog);
  add_section(out, 1, data.cloud);
  add_section(out, 2, data.models);
  return out;
}

std::optional<Catalog> snapshot_catalog(std::string_view snapshot) {
  Catalog c;
  if (!read_section(snapshot, 0, c)) return std::nullopt;
  c.origin = kOrigins[0];
  c.reindex();
  return c;
}

std::optional<Cloud> snapshot_cloud(std::string_view snapshot) {
  Cloud c;
  if (!read_section(snapshot, 1, c)) return std::nullopt;
  c.origin = kOrigins[1];
  c.reindex();
  return c;
}

std::optional<std::vector<ModelArch>> snapshot_models(std::string_view snapshot) {
  std::vector<ModelArch> models;
  if (!read_section(snapshot, 2, models)) return std::nullopt;
  return models;
}

}  // namespace gpusel
