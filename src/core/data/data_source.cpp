#include "gpusel/data/data_source.hpp"

#include "gpusel/json/embedded.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel {
namespace {

Catalog catalog_from(const std::string& path) {
  const std::string origin = path.empty() ? "embedded data/gpus.json" : path;
  const std::string text = load_text(path, "data/gpus.json");
  return parse_catalog(parse_json_text(text, origin), origin);
}

}  // namespace

std::string load_text(const std::string& path, const std::string& embedded_name) {
  if (path.empty()) return std::string(embedded_text(embedded_name));
  return read_file(path);
}

Catalog load_catalog(const DataPaths& paths) {
  Catalog cat = catalog_from(paths.catalog);
  for (const auto& overlay : paths.catalog_add) merge_catalog(cat, catalog_from(overlay));
  return cat;
}

}  // namespace gpusel
