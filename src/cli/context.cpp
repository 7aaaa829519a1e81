#include "cli/context.hpp"

#include "gpusel/base/heap.hpp"

namespace gpusel::cli {

// A run ends with its data: a long user's file's records are left for the system to take back
// at once (keep_until_exit) instead of freed one by one. A short one is freed: an in-process
// caller (the fuzz target runs thousands of commands) must not keep them all.
Context::~Context() {
  constexpr std::size_t kKeepFrom = 4096;  // records; freeing fewer takes under a millisecond
  if (catalog_ && catalog_->gpus.size() >= kKeepFrom) keep_until_exit(std::move(catalog_));
  if (cloud_ && cloud_->offers.size() >= kKeepFrom) keep_until_exit(std::move(cloud_));
}

const Catalog& Context::catalog() {
  if (!catalog_) {
    DataPaths p = paths;
    p.record_text = with_text_;
    catalog_ = std::make_unique<Catalog>(load_catalog(p));
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
  cloud_ = std::make_unique<Cloud>(std::move(c));
  return *cloud_;
}

}  // namespace gpusel::cli
