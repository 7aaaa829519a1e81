// `gpusel cloud list`: the offers, filtered, with their age.
#include <algorithm>
#include <set>

#include "gpusel/answer/data_status.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/validate.hpp"

namespace gpusel {
namespace {

std::string checked_as_of(const std::string& as_of) {
  if (as_of.empty()) return today_iso();
  if (!is_date(as_of)) throw usage_error("--as-of '" + as_of + "' is not a date (YYYY-MM-DD)");
  return as_of;
}

void check_provider(const Cloud& cloud, const std::string& provider) {
  std::set<std::string> providers;
  for (const auto& o : cloud.offers) providers.insert(o.provider);
  if (providers.count(provider)) return;
  const std::vector<std::string> list(providers.begin(), providers.end());
  std::string all;
  for (const auto& p : list) all += (all.empty() ? "" : ", ") + p;
  throw usage_error("no offers from provider '" + provider + "'" + did_you_mean(provider, list) +
                    " (providers: " + all + ")");
}

}  // namespace

CloudListAnswer list_cloud(const Cloud& cloud, const Catalog& catalog, const CloudListQuery& q) {
  CloudListAnswer a;
  a.as_of = checked_as_of(q.as_of);
  a.origin = cloud.origin;
  a.reviewed = cloud.reviewed;
  a.total = cloud.offers.size();
  const std::string gpu = to_lower(q.gpu), provider = to_lower(q.provider);
  if (!gpu.empty()) require_gpu(catalog, gpu);
  if (!provider.empty()) check_provider(cloud, provider);
  for (const auto& o : cloud.offers) {
    if ((!gpu.empty() && o.gpu != gpu) || (!provider.empty() && o.provider != provider)) continue;
    CloudOfferRow r{&o, std::nullopt, days_between(o.as_of, a.as_of), false,
                    instance_network(o, cloud.defaults)};
    if (o.on_demand_per_hour)
      r.per_gpu_hour = *o.on_demand_per_hour / std::max(1, o.gpus_per_instance);
    r.past_limit = r.age_days > kOfferMaxAgeDays;
    a.past_limit += r.past_limit;
    a.offers.push_back(r);
  }
  std::stable_sort(a.offers.begin(), a.offers.end(), [](const auto& x, const auto& y) {
    if (x.offer->gpu != y.offer->gpu) return x.offer->gpu < y.offer->gpu;
    if (x.offer->currency != y.offer->currency) return x.offer->currency < y.offer->currency;
    if (x.per_gpu_hour.has_value() != y.per_gpu_hour.has_value()) return x.per_gpu_hour.has_value();
    return x.per_gpu_hour.value_or(0) < y.per_gpu_hour.value_or(0);
  });
  return a;
}

}  // namespace gpusel
