#include "cli/context.hpp"

namespace gpusel::cli {

const Catalog& Context::catalog() {
  if (!catalog_) catalog_ = load_catalog(paths);
  return *catalog_;
}

// Files the user names must name catalog GPUs; the embedded offers, written for the embedded
// catalog, are trimmed to a user's own catalog instead of failing on it.
const Cloud& Context::cloud() {
  if (cloud_) return *cloud_;
  Cloud c = load_cloud_file(cloud_paths.cloud, false);
  if (cloud_paths.cloud.empty() && !paths.catalog.empty())
    drop_offers_without_gpu(c, catalog());
  else
    check_offer_gpus(c, catalog());
  for (const auto& path : cloud_paths.cloud_add) {
    Cloud overlay = load_cloud_file(path, true);
    check_offer_gpus(overlay, catalog());
    merge_cloud(c, overlay);
  }
  cloud_ = std::move(c);
  return *cloud_;
}

}  // namespace gpusel::cli
