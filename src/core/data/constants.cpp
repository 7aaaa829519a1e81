#include "gpusel/data/constants.hpp"

#include <map>
#include <string>

#include "gpusel/base/error.hpp"
#include "gpusel/json/embedded.hpp"

namespace gpusel {
namespace {

// Parsed once: every lookup after the first is a map search.
const std::map<std::string, double, std::less<>>& constants() {
  static const auto table = [] {
    const std::string origin = "data/constants.json";
    const nlohmann::json& doc = embedded_json(origin);
    std::map<std::string, double, std::less<>> out;
    if (!doc.contains("constants") || !doc["constants"].is_object())
      throw data_error(origin + ": expected a \"constants\" object");
    for (const auto& [name, c] : doc["constants"].items()) {
      if (!c.is_object() || !c.contains("value") || !c["value"].is_number() ||
          !c.contains("source") || !c.contains("unit"))
        throw data_error(origin + ": constant '" + name + "' needs value, unit and source");
      out[name] = c["value"].get<double>();
    }
    return out;
  }();
  return table;
}

}  // namespace

double data_constant(std::string_view name) {
  const auto& t = constants();
  auto it = t.find(name);
  if (it == t.end())
    throw data_error("data/constants.json: no constant '" + std::string(name) + "'");
  return it->second;
}

}  // namespace gpusel
