#include "cli/context.hpp"

namespace gpusel::cli {

const Catalog& Context::catalog() {
  if (!catalog_) catalog_ = load_catalog(paths);
  return *catalog_;
}

const Cloud& Context::cloud() {
  if (!cloud_) {
    Cloud c = load_cloud(cloud_paths);
    check_offer_gpus(c, catalog());
    cloud_ = std::move(c);
  }
  return *cloud_;
}

}  // namespace gpusel::cli
