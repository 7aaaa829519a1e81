#include "cli/context.hpp"

namespace gpusel::cli {

const Catalog& Context::catalog() {
  if (!catalog_) {
    DataPaths p = paths;
    p.record_text = with_text_;
    catalog_ = load_catalog(p);
  }
  return *catalog_;
}

const Catalog& Context::catalog_with_text() {
  if (catalog_ && !with_text_) catalog_.reset();
  with_text_ = true;
  return catalog();
}

// Files the user names must name catalog GPUs; the embedded offers, written for the embedded
// catalog, are trimmed to a user's own catalog instead of failing on it.
const Cloud& Context::cloud() {
  if (cloud_) return *cloud_;
  const bool embedded = cloud_paths.cloud.empty();
  Cloud c = load_cloud_file(cloud_paths.cloud, false, embedded ? nullptr : &catalog());
  if (embedded && !paths.catalog.empty())
    drop_offers_without_gpu(c, catalog());
  else if (embedded)
    check_offer_gpus(c, catalog());
  for (const auto& path : cloud_paths.cloud_add)
    merge_cloud(c, load_cloud_file(path, true, &catalog()));
  cloud_ = std::move(c);
  return *cloud_;
}

}  // namespace gpusel::cli
