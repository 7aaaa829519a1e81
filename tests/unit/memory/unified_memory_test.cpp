// Unified memory as a memory kind: the GPU's share of the pool per OS (gpus.json
// unified_memory_share), the fallback constant, and fit's advice to raise the share.
#include <catch2/catch.hpp>

#include "estimator_fixtures.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/memory/fit.hpp"

using namespace gpusel;

namespace {

const double GiB = 1073741824.0;

MemoryShare share(const char* os, const char* setting, std::optional<double> fraction,
                  std::optional<double> gb, const char* how = "") {
  return {os, setting, fraction, gb, how, "https://example.invalid", "2026-09-08", ""};
}

Gpu soc(const char* vendor, std::vector<MemoryShare> shares) {
  Gpu g;
  g.id = g.name = std::string(vendor) + "-soc";
  g.vendor = vendor, g.form_factor = "soc", g.vram_gb = 128, g.unified_memory = true;
  g.unified_memory_share = std::move(shares);
  return g;
}

Gpu strix() {  // Ryzen AI Max+ 395's recorded shares
  return soc("amd", {share("linux", "default", 0.5, {}, "GTT is half of system memory"),
                     share("linux", "maximum", {}, 120, "options ttm pages_limit=..."),
                     share("windows", "maximum", {}, 96, "BIOS Variable Graphics Memory")});
}

}  // namespace

TEST_CASE("a unified-memory part's usable memory is its default GPU share on the OS") {
  const Gpu mac =
      soc("apple", {share("macos", "default", 0.75, {}, "sudo sysctl iogpu.wired_limit_mb")});
  CHECK(natural_os(mac) == "macos");
  CHECK(usable_bytes(mac) == Approx(0.75 * 128 * GiB));
  CHECK(describe(default_reserve(mac)).find("under macos by default") != std::string::npos);
  CHECK(natural_os(strix()) == "linux");
  CHECK(usable_bytes(strix()) == Approx(64 * GiB));
  // An absolute share is capped at the pool less the engines' 10 %: the OS allocates from it.
  const Gpu spark = soc("nvidia", {share("linux", "default", {}, 121.69)});
  CHECK(usable_bytes(spark) == Approx(0.9 * 128 * GiB));
}

TEST_CASE("with no default share for the OS, the unified_memory_reserve_fraction applies") {
  Reserve windows;
  windows.os = "windows";  // Ryzen AI Max records only a Windows maximum
  CHECK(usable_bytes(strix(), windows) == Approx(0.75 * 128 * GiB));
  CHECK(usable_bytes(soc("amd", {})) == Approx(0.75 * 128 * GiB));
  // --reserve wins over any share.
  CHECK(usable_bytes(strix(), parse_reserve("5%")) == Approx(0.95 * 128 * GiB));
  // Discrete cards ignore --os.
  Gpu card = soc("nvidia", {});
  card.unified_memory = false, card.form_factor = "pcie";
  CHECK(usable_bytes(card, windows) == Approx(0.9 * 128 * GiB));
  CHECK(parse_os("Linux") == "linux");
  CHECK_THROWS_WITH(parse_os("bsd"), Catch::Contains("macos|linux|windows"));
}

TEST_CASE("fit advises raising the share to the recorded maximum when that makes it fit") {
  Workload w = test_models::on(test_models::llama31_8b(), Mode::inference);
  w.model.params = 40e9;  // about 80 GB of bf16 weights: over 64 GiB, under 115 GiB
  const FitResult r = fit(w, strix(), 1);
  REQUIRE(!r.fits);
  REQUIRE(!r.changes.empty());
  CHECK(r.changes.front().fits);
  CHECK(r.changes.front().change.find("linux maximum") != std::string::npos);
  CHECK(r.changes.front().change.find("ttm pages_limit") != std::string::npos);
  // On Windows the maximum is a 96 GB carve-out: too small, so no such advice.
  Reserve windows;
  windows.os = "windows";
  for (const auto& c : fit(w, strix(), 1, windows).changes)
    CHECK(c.change.find("maximum") == std::string::npos);
  // A limit the user set stays theirs.
  for (const auto& c : fit(w, strix(), 1, parse_reserve("40%")).changes)
    CHECK(c.change.find("raise the GPU") == std::string::npos);
}

TEST_CASE("a default share that says how to raise it leads to raising it, 10 % kept") {
  const Gpu mac =
      soc("apple", {share("macos", "default", 0.75, {}, "sudo sysctl iogpu.wired_limit_mb=<MB>")});
  Workload w = test_models::on(test_models::llama31_8b(), Mode::inference);
  w.model.params = 54e9;  // ~108 GB of weights: over 96 GiB, under 115 GiB
  const FitResult r = fit(w, mac, 1);
  REQUIRE(!r.fits);
  CHECK(r.changes.front().change.find("iogpu.wired_limit_mb") != std::string::npos);
  CHECK(r.changes.front().change.find("--reserve 10%") != std::string::npos);
  w.model.params = 70e9;  // beyond any share of 128 GB
  for (const auto& c : fit(w, mac, 1).changes)
    CHECK(c.change.find("raise the GPU") == std::string::npos);
}

TEST_CASE("the catalog reads unified_memory_share and rejects an entry with neither size") {
  auto doc = nlohmann::json::parse(R"({"gpus": [{"id": "s", "name": "S", "vendor": "amd",
    "segment": "workstation", "ecosystem": "rocm", "vram_gb": 128, "bandwidth_gbs": 256,
    "unified_memory": true, "unified_memory_share": [
      {"os": "linux", "setting": "default", "fraction": 0.5, "source": "https://x", "as_of": "2026-01-01"}]}]})");
  const Catalog c = parse_catalog(doc, "t.json");
  REQUIRE(c.gpus[0].unified_memory_share.size() == 1);
  CHECK(*c.gpus[0].unified_memory_share[0].fraction == 0.5);
  doc["gpus"][0]["unified_memory_share"][0].erase("fraction");
  CHECK_THROWS_WITH(parse_catalog(doc, "t.json"), Catch::Contains("one of 'fraction' and 'gb'"));
}
