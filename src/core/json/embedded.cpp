#include "gpusel/json/embedded.hpp"

#include <string>

#include "gpusel/base/error.hpp"

namespace gpusel {

std::string_view embedded_text(std::string_view path) {
  for (const auto& f : embedded_files())
    if (f.path == path) return f.text;
  throw data_error("no embedded data file '" + std::string(path) + "' in this build");
}

}  // namespace gpusel
