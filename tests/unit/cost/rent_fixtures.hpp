#pragma once
// The rental tests' catalog, offers, rules and rates: the small fixtures, a 7B inference of
// 10^9 tokens in USD.
#include "estimator_fixtures.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/cost/rent.hpp"
#include "gpusel/rank/rules.hpp"

namespace rent_fixtures {

using namespace gpusel;

inline nlohmann::json rent_doc(const std::string& name) {
  return parse_json_text(read_file(GPUSEL_FIXTURES "/" + name), name);
}

struct RentFixture {
  Catalog catalog = parse_catalog(rent_doc("catalog/small.json"), "small.json");
  Cloud cloud = parse_cloud(rent_doc("cloud/small.json"), "cloud/small.json");
  RuleSet rules = load_rules();
  Rates rates = parse_rates(nlohmann::json::parse(R"({"base": "USD", "as_of": "2026-11-01",
      "source": "test", "rates": {"USD": 1, "CNY": 7.0}})"),
                            "test");
  RankRequest req;
  RentFixture() {
    req.workload = test_models::on(test_models::llama2_7b(), Mode::inference);
    req.price.currency = "USD";
    req.tokens = 1e9;
  }
};

// Every offer of the fixture on an EFA-like network: instances can join for one job.
inline void with_rdma(Cloud& cloud) {
  for (auto& o : cloud.offers) {
    InstanceNetwork efa;
    efa.gbps = 3200, efa.rdma = true, efa.published = true, efa.source = "test";
    o.network = efa;
  }
}

}  // namespace rent_fixtures
