// Writes a catalog or a cloud offers file of N entries for the scaling benchmark
// (tests/bench/scaling.sh): every entry is a shipped record under a new id, so each passes
// the same checks a real one does.
//   gen_data gpus N > gpus.json      N cards cycled from data/gpus.json
//   gen_data offers N > cloud.json   N offers cycled from data/cloud.json (catalog GPU ids)
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "gpusel/json/embedded.hpp"

namespace {

using nlohmann::json;

json shipped(const char* path) { return json::parse(gpusel::embedded_text(path)); }

// The cards as users write their own: the review trail and long notes stay in the shipped file.
json cards(std::size_t n) {
  json doc = shipped("data/gpus.json");
  const json base = doc["gpus"];
  json out = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    json g = base[i % base.size()];
    g["id"] = g["id"].get<std::string>() + "-" + std::to_string(i);
    g.erase("review");
    g.erase("notes");
    if (g["sources"].size() > 1) g["sources"] = json::array({g["sources"][0]});
    out.push_back(std::move(g));
  }
  doc["gpus"] = std::move(out);
  return doc;
}

json offers(std::size_t n) {
  json doc = shipped("data/cloud.json");
  const json base = doc["offers"];
  json out = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    json o = base[i % base.size()];
    o["id"] = o["id"].get<std::string>() + "-" + std::to_string(i);
    o["notes"] = "";
    out.push_back(std::move(o));
  }
  doc["offers"] = std::move(out);
  return doc;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: gen_data gpus|offers N\n";
    return 2;
  }
  const std::string kind = argv[1];
  const auto n = static_cast<std::size_t>(std::strtoull(argv[2], nullptr, 10));
  if (kind != "gpus" && kind != "offers") return 2;
  std::cout << (kind == "gpus" ? cards(n) : offers(n)).dump(1) << "\n";
  return 0;
}
