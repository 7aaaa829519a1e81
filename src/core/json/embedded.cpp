#include "gpusel/json/embedded.hpp"

#include <map>
#include <mutex>
#include <string>

#include "gpusel/base/error.hpp"
#include "json/json_build.hpp"

namespace gpusel {

std::string_view embedded_text(std::string_view path) {
  for (const auto& f : embedded_files())
    if (f.path == path) return f.text;
  throw data_error("no embedded data file '" + std::string(path) + "' in this build");
}

const nlohmann::json& embedded_json(std::string_view path) {
  // Built once per process and kept: each shipped file is read by whichever command needs it,
  // and some (throughput, frameworks) by several callers in one run.
  // Locked: long data files are read on several threads (data/document_waves.hpp), and the
  // first to need a file builds it. A built tree is never changed or moved (map nodes stay).
  static std::map<std::string, nlohmann::json, std::less<>> trees;
  static std::mutex lock;
  const std::lock_guard<std::mutex> hold(lock);
  if (auto it = trees.find(path); it != trees.end()) return it->second;
  std::string origin = "embedded " + std::string(path);
  nlohmann::json doc = json_detail::build(embedded_text(path), origin);
  return trees.emplace(std::string(path), std::move(doc)).first->second;
}

}  // namespace gpusel
