#include "cli/context.hpp"

namespace gpusel::cli {

const Catalog& Context::catalog() {
  if (!catalog_) catalog_ = load_catalog(paths);
  return *catalog_;
}

}  // namespace gpusel::cli
