#include "gpusel/data/platforms.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/data/data_source.hpp"
#include "gpusel/json/embedded.hpp"

using namespace gpusel;

namespace {

const Catalog& shipped() {
  static const Catalog c = load_catalog({});
  return c;
}

PlatformQuote platforms_quote(const std::string& id, int count, bool used = false) {
  return quote_platform(default_platforms(), require_gpu(shipped(), id), count, used);
}

nlohmann::json shipped_doc() { return nlohmann::json::parse(embedded_text("data/platforms.json")); }

}  // namespace

TEST_CASE("every shipped card has a platform for one card, with a sourced price") {
  for (const auto& g : shipped().gpus) {
    CAPTURE(g.id);
    const PlatformQuote q = quote_platform(default_platforms(), g, 1, false);
    REQUIRE(q.platform);
    CHECK(q.hosts == 1);
    CHECK(q.total_usd >= 0);
    CHECK_FALSE(q.platform->cost.source.empty());
  }
}

TEST_CASE("a desktop's power supply is sized to its cards, in the data's steps") {
  // (TDP + 350 W) x 1.2, next step up: 450 W -> 960 -> 1000 W; 575 W -> 1110 -> 1200 W;
  // two 575 W cards -> 1800 -> 2000 W; a 170 W card -> 624 -> 850 W.
  CHECK(platforms_quote("rtx-4090", 1).psu_watts == 1000);
  CHECK(platforms_quote("rtx-5090", 1).psu_watts == 1200);
  CHECK(platforms_quote("rtx-5090", 2).psu_watts == 2000);
  CHECK(platforms_quote("rtx-3060-12gb", 1).psu_watts == 850);
  CHECK(platforms_quote("rtx-5090", 2).platform->id == "desktop-2");
  CHECK(platforms_quote("rtx-5090", 2).total_usd > platforms_quote("rtx-5090", 1).total_usd);
}

TEST_CASE("what can be built: two consumer cards, four workstation cards, eight per server") {
  CHECK(platforms_quote("rtx-4090", 3).platform == nullptr);  // K18: a desktop board takes two
  CHECK(platforms_quote("rtx-a6000", 4).platform->id == "workstation");
  CHECK(platforms_quote("rtx-a6000", 8).platform->id == "pcie-server");
  CHECK(platforms_quote("t4", 1).platform->id == "small-server");  // passive: server airflow
  CHECK(platforms_quote("l40s", 8).platform->id == "pcie-server");
  const HostLimits consumer = host_limits(default_platforms(), require_gpu(shipped(), "rtx-4090"));
  CHECK(consumer.per_host == 2);
  CHECK_FALSE(consumer.networked);
  const HostLimits sxm = host_limits(default_platforms(), require_gpu(shipped(), "h100-sxm"));
  CHECK(sxm.per_host == 8);
  CHECK(sxm.networked);
}

TEST_CASE("modules need their server, beyond one host a network per GPU") {
  const PlatformQuote one = platforms_quote("h100-sxm", 1), eight = platforms_quote("h100-sxm", 8);
  CHECK(one.platform->id == "hgx-server");
  CHECK(one.total_usd == eight.total_usd);  // one module still needs the whole board
  const PlatformQuote sixteen = platforms_quote("h100-sxm", 16);
  CHECK(sixteen.hosts == 2);
  REQUIRE(sixteen.network);
  CHECK(sixteen.network->id == "infiniband-ndr");
  CHECK(sixteen.network_usd == Approx(16 * sixteen.network->cost_per_gpu.value));
  CHECK(sixteen.total_usd == Approx(2 * eight.total_usd + sixteen.network_usd));
  // Used SXM2 modules go in a used server; new ones in a new HGX-class host.
  CHECK(platforms_quote("v100-sxm2-32gb", 8, true).platform->id == "used-sxm2-server");
  CHECK(platforms_quote("v100-sxm2-32gb", 8, false).platform->id == "hgx-server");
}

TEST_CASE("used passive cards go in a used server, new ones in a new one") {
  const PlatformQuote used = platforms_quote("tesla-p40", 2, true);
  CHECK(used.platform->id == "used-pcie-server");
  CHECK(used.hosts == 1);
  CHECK(platforms_quote("tesla-p40", 4, true).hosts == 1);  // a 2U server takes four
  CHECK(platforms_quote("tesla-p40", 2, false).platform->id == "small-server");
  CHECK(used.total_usd < platforms_quote("tesla-p40", 2, false).total_usd);
}

TEST_CASE("a laptop GPU is priced in its laptop: no host beside it") {
  const PlatformQuote q = platforms_quote("rtx-4090-laptop", 1);
  CHECK(q.platform->id == "laptop");
  CHECK(q.total_usd == 0);
}

TEST_CASE("a unified-memory machine is its own platform, at no extra cost") {
  for (const auto& g : shipped().gpus)
    if (g.unified_memory) {
      CAPTURE(g.id);
      const PlatformQuote q = quote_platform(default_platforms(), g, 1, false);
      CHECK(q.platform->id == "system");
      CHECK(q.total_usd == 0);
    }
}

TEST_CASE("bad platform files are data errors naming the place") {
  auto error_of = [](nlohmann::json doc) {
    try {
      parse_platforms(doc, "p.json");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::data);
      return std::string(e.what());
    }
    return std::string();
  };
  nlohmann::json doc = shipped_doc();
  doc["platforms"][0]["network"] = "token-ring";
  CHECK_THAT(error_of(doc), Catch::Contains("p.json: platforms[0]: unknown network 'token-ring'"));
  doc = shipped_doc();
  doc["platforms"][1]["cost"]["value"] = 1e7;
  CHECK_THAT(error_of(doc), Catch::Contains("lies outside its range"));
  doc = shipped_doc();
  doc["psu"]["steps"][0]["watts"] = -1;
  CHECK_THAT(error_of(doc), Catch::Contains("/psu/steps/0/watts"));
  // Board sizes: within the host, each a multiple of the first.
  for (const auto& sizes : {nlohmann::json::array({4, 6}), nlohmann::json::array({16})}) {
    doc = shipped_doc();
    for (auto& p : doc["platforms"])
      if (p["id"] == "hgx-server") p["sold_in"]["value"] = sizes;
    CHECK_THAT(error_of(doc), Catch::Contains("sold_in.value"));
  }
}

TEST_CASE("modules are sold on boards: HGX H100 in 4 or 8, B200 and MI300X in 8, GB200 racks") {
  auto sizes = [](const char* id) { return platforms_quote(id, 8).platform->sold_in; };
  CHECK(sizes("h100-sxm") == std::vector<int>{4, 8});
  CHECK(sizes("a100-80gb-sxm") == std::vector<int>{4, 8});
  CHECK(sizes("b200") == std::vector<int>{8});
  CHECK(sizes("mi300x") == std::vector<int>{8});
  CHECK(sizes("gaudi-3") == std::vector<int>{8});
  CHECK(platforms_quote("gb200", 72).platform->sold_in == std::vector<int>{36, 72});
  // PCIe cards are sold one at a time.
  CHECK(platforms_quote("rtx-4090", 1).platform->sold_in.empty());
}

TEST_CASE("offloaded parts need host RAM: raised in DIMM steps, a bigger board, or short") {
  const Platforms& p = default_platforms();
  const Gpu& card = require_gpu(shipped(), "rtx-3090");
  const PlatformQuote bare = quote_platform(p, card, 1, false);
  CHECK(bare.ram_need_gb == 0);  // nothing offloaded: the price as before
  // 42.55 GiB of experts + the 4 GB OS reserve = 46.55 -> 48 GB (16 GB steps): 16 GB added to
  // the desktop's 32 at 9.4 USD/GB (data/platforms.json host_memory).
  const PlatformQuote moe = quote_platform(p, card, 1, false, 42.55);
  REQUIRE(moe.platform);
  CHECK(moe.platform->id == "desktop");
  CHECK(moe.ram_need_gb == Approx(46.55));
  CHECK(moe.ram_gb == 48);
  CHECK(moe.ram_added_gb == 16);
  CHECK(moe.ram_usd == Approx(16 * 9.4));
  CHECK(moe.total_usd == Approx(bare.total_usd + 16 * 9.4));
  CHECK_THAT(moe.label, Catch::Contains("48 GB RAM"));
  // Within the RAM already there: nothing added.
  const PlatformQuote small = quote_platform(p, card, 1, false, 20);
  CHECK(small.ram_added_gb == 0);
  CHECK(small.total_usd == Approx(bare.total_usd));
  // Beyond an AM4 board's 128 GB the dual-slot AM5 host (up to 256 GB) takes the card.
  const PlatformQuote big = quote_platform(p, card, 1, false, 200);
  REQUIRE(big.platform);
  CHECK(big.platform->id == "desktop-2");
  CHECK(big.ram_gb == 208);
  CHECK(big.ram_short_gb == 0);
  // Beyond the desktops: the EPYC host's 768 GB (Tencent Xuanwu Lab's DeepSeek build).
  const PlatformQuote epyc = quote_platform(p, card, 1, false, 400);
  REQUIRE(epyc.platform);
  CHECK(epyc.platform->id == "epyc-ram-host");
  CHECK(epyc.ram_added_gb == 0);
  CHECK(epyc.ram_short_gb == 0);
  // Beyond every board that takes the card: the first platform, short by what it lacks.
  const PlatformQuote beyond = quote_platform(p, card, 1, false, 800);
  REQUIRE(beyond.platform);
  CHECK(beyond.platform->id == "desktop");
  CHECK(beyond.ram_short_gb == Approx(804 - 128));
  // Per host: two cards' offload in one host.
  CHECK(quote_platform(p, card, 2, false, 30).ram_need_gb == Approx(64));
  // A unified-memory machine does not count host RAM apart from its own.
  const Gpu& mac = require_gpu(shipped(), "apple-m4-max");
  CHECK(quote_platform(p, mac, 1, false, 42.55).ram_need_gb == 0);
}

TEST_CASE("host RAM figures: as built within the board's most, priced per GB") {
  const Platforms& p = default_platforms();
  CHECK(p.ram_step_gb > 0);
  CHECK(p.ram_usd_per_gb > 0);
  for (const auto& pl : p.platforms) {
    CAPTURE(pl.id);
    if (pl.match.unified_memory || pl.id == "laptop") {
      CHECK(pl.ram_gb == 0);
      continue;
    }
    CHECK(pl.ram_gb > 0);
    CHECK(pl.ram_gb <= pl.ram_max_gb);
  }
  nlohmann::json doc = shipped_doc();
  for (auto& pl : doc["platforms"])
    if (pl["id"] == "desktop") pl["host_memory"]["max_gb"] = 1;
  CHECK_THROWS_WITH(parse_platforms(doc, "p.json"), Catch::Contains("host_memory: gb must be"));
}
