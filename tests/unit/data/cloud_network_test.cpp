// The network between separate instances of an offer (data/cloud.json "network", else
// defaults.instance_network): loaded, refused and validated alike.
#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/cloud.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/data/validate.hpp"

using namespace gpusel;

namespace {

nlohmann::json small_doc() {
  const std::string path = GPUSEL_FIXTURES "/cloud/small.json";
  return parse_json_text(read_file(path), path);
}

nlohmann::json network(double gbps, bool rdma) {
  return {{"gbps", gbps},
          {"rdma", rdma},
          {"source", "https://example.invalid/net"},
          {"as_of", "2026-12-01"}};
}

// Error findings of `catalog validate` on the document (no catalog: GPU ids unchecked).
std::vector<std::string> validate_errors(const nlohmann::json& doc) {
  std::vector<std::string> out;
  for (const auto& d :
       validate_document(doc.dump(2), "t.json", {"2026-12-02", nullptr}).diagnostics)
    if (d.severity == Severity::error) out.push_back(d.pointer + " " + d.check);
  return out;
}

}  // namespace

TEST_CASE("an offer's network loads, and without one the default applies") {
  auto doc = small_doc();
  doc["offers"][0]["network"] = network(25, false);
  doc["defaults"]["instance_network"] = {{"value", 5},
                                         {"range", {1, 100}},
                                         {"unit", "Gbit/s per instance"},
                                         {"source", "test"},
                                         {"as_of", "2026-12-01"}};
  const Cloud c = parse_cloud(doc, "t");
  const InstanceNetwork own = instance_network(c.offers[0], c.defaults);
  CHECK(own.gbps == 25);
  CHECK_FALSE(own.rdma);
  CHECK(own.published);
  CHECK(own.source == "https://example.invalid/net");
  const InstanceNetwork assumed = instance_network(c.offers[1], c.defaults);
  CHECK(assumed.gbps == 5);
  CHECK_FALSE(assumed.rdma);
  CHECK_FALSE(assumed.published);
}

TEST_CASE("a file without defaults.instance_network falls back on the embedded default") {
  const Cloud c = parse_cloud(small_doc(), "t");
  REQUIRE_FALSE(c.defaults.instance_network);
  const Cloud embedded = load_cloud({});
  REQUIRE(embedded.defaults.instance_network);
  CHECK(instance_network(c.offers[0], c.defaults).gbps ==
        embedded.defaults.instance_network->value);
}

TEST_CASE("a network of 0 Gbit/s, without rdma or above the bound is refused by both") {
  auto zero = small_doc(), no_rdma = small_doc(), huge = small_doc(), zero_default = small_doc();
  zero["offers"][0]["network"] = network(0, false);
  no_rdma["offers"][0]["network"] = network(10, false);
  no_rdma["offers"][0]["network"].erase("rdma");
  huge["offers"][0]["network"] = network(2e5, true);
  zero_default["defaults"]["instance_network"] = {{"value", 0},
                                                  {"range", {0, 100}},
                                                  {"unit", "Gbit/s"},
                                                  {"source", "t"},
                                                  {"as_of", "2026-12-01"}};
  CHECK_THROWS_WITH(parse_cloud(zero, "t"), Catch::Contains("(tc-a100-1x): network: 'gbps'"));
  CHECK_THROWS_WITH(parse_cloud(no_rdma, "t"), Catch::Contains("missing field 'rdma'"));
  CHECK_THROWS_WITH(parse_cloud(huge, "t"), Catch::Contains("at most 100000"));
  CHECK_THROWS_WITH(parse_cloud(zero_default, "t"), Catch::Contains("instance_network"));
  for (const auto* doc : {&zero, &no_rdma, &huge, &zero_default})
    CHECK_FALSE(validate_errors(*doc).empty());
  auto good = small_doc();
  good["offers"][0]["network"] = network(0.1, false);
  CHECK(validate_errors(good).empty());
  CHECK_NOTHROW(parse_cloud(good, "t"));
}

TEST_CASE("the embedded offers carry their providers' networks") {
  const Cloud c = load_cloud({});
  const auto net = [&](const char* id) {
    const Offer* o = c.find(id);
    REQUIRE(o);
    return instance_network(*o, c.defaults);
  };
  // RunPod's Global networking between pods: 100 Mbit/s.
  CHECK(net("runpod-secure-h100-sxm").gbps == Approx(0.1));
  CHECK(net("aws-g6.xlarge-us-east-1").gbps == 10);
  CHECK(net("aws-p5.48xlarge-us-east-1").gbps == 3200);
  CHECK(net("aws-p5.48xlarge-us-east-1").rdma);
  CHECK_FALSE(net("aws-g4dn.xlarge-us-east-1").rdma);
  // Lambda publishes nothing for its 1-GPU instances: the default, over TCP.
  CHECK_FALSE(net("lambda-1x-h100-sxm").published);
  CHECK(net("lambda-1x-h100-sxm").gbps == c.defaults.instance_network->value);
  for (const auto& o : c.offers)
    if (o.network) {
      INFO(o.id);
      CHECK_FALSE(o.network->source.empty());
      CHECK(is_date(o.network->as_of));
    }
}
