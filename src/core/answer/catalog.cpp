// `catalog list` and `catalog validate`.
#include <algorithm>

#include "gpusel/answer/answers.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/json/embedded.hpp"

namespace gpusel {

const Price* latest_price(const Gpu& gpu) {
  if (gpu.prices.empty()) return nullptr;
  return &*std::max_element(gpu.prices.begin(), gpu.prices.end(),
                            [](const Price& a, const Price& b) { return a.as_of < b.as_of; });
}

CatalogListAnswer list_gpus(const Catalog& catalog, const GpuFilter& f) {
  CatalogListAnswer a;
  a.total = catalog.gpus.size();
  for (const auto& g : catalog.gpus)
    if ((f.vendor.empty() || to_lower(f.vendor) == g.vendor) &&
        (f.segment.empty() || to_lower(f.segment) == g.segment) && g.vram_gb >= f.min_vram_gb)
      a.gpus.push_back(&g);
  return a;
}

ValidateAnswer validate_data(std::vector<DataFile> files,
                             const std::function<const Catalog&()>& catalog,
                             const std::string& as_of, bool strict) {
  if (files.empty())  // every embedded data file that has a validator
    for (const char* p :
         {"data/gpus.json", "data/cloud.json", "data/models.json", "data/platforms.json"})
      for (const auto& e : embedded_files())
        if (e.path == p) files.push_back({std::string(p), std::string(e.text)});
  ValidateAnswer a;
  a.as_of = as_of.empty() ? today_iso() : as_of;
  ValidateOptions opt{a.as_of, nullptr};
  for (const auto& in : files) {
    if (in.text.find("\"offers\"") != std::string::npos) opt.gpus = &catalog();
    const ValidationReport r = validate_document(in.text, in.name, opt);
    a.files.push_back(
        {in.name, r.count(Severity::error), r.count(Severity::warning), r.count(Severity::note)});
    a.report.diagnostics.insert(a.report.diagnostics.end(), r.diagnostics.begin(),
                                r.diagnostics.end());
  }
  a.passed = a.report.passed(strict);
  return a;
}

}  // namespace gpusel
