#include "gpusel/data/catalog.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/data_source.hpp"

using namespace gpusel;

namespace {

const std::string kFixtures = GPUSEL_FIXTURES "/catalog/";

Catalog catalog_fixture(const std::string& name) { return load_catalog({kFixtures + name, {}}); }

ExitCode code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return ExitCode::ok;
}

}  // namespace

TEST_CASE("the loader reads typed records with their conventions") {
  const Catalog c = catalog_fixture("small.json");
  REQUIRE(c.gpus.size() == 7);
  const Gpu& g = require_gpu(c, "rtx-4090");
  CHECK(g.vendor == "nvidia");
  CHECK(g.vram_gb == 24);
  CHECK(g.bandwidth_gbs == 1008);
  REQUIRE(g.bf16_tflops_dense);
  CHECK(*g.bf16_tflops_dense == Approx(165.2));
  REQUIRE(g.fp16_acc16_tflops_dense);
  CHECK(*g.fp16_acc16_tflops_dense == Approx(2 * *g.fp16_tflops_dense).epsilon(0.01));
  CHECK(g.interconnect.kind == "none");
  CHECK(g.interconnect.max_gpus == 1);
  const Gpu& a100 = require_gpu(c, "a100-80gb-sxm");
  CHECK(a100.interconnect.kind == "nvlink");
  CHECK(a100.interconnect.bandwidth_gbs == 600);
  CHECK(a100.tensor16_tflops() == Approx(312));
  CHECK(require_gpu(c, "apple-m4-max").unified_memory);
}

TEST_CASE("the embedded catalog loads and covers every segment and vendor") {
  const Catalog c = load_catalog({});
  CHECK(c.gpus.size() >= 60);
  for (const char* id : {"rtx-3060-12gb",
                         "rtx-3090",
                         "rtx-4060-ti-16gb",
                         "rtx-4090",
                         "rtx-5090",
                         "rtx-a6000",
                         "rtx-6000-ada",
                         "rtx-pro-6000-blackwell",
                         "t4",
                         "titan-rtx",
                         "quadro-rtx-8000",
                         "rtx-4070-laptop",
                         "v100-sxm2-32gb",
                         "a10",
                         "l4",
                         "l40s",
                         "a100-40gb-pcie",
                         "a100-80gb-sxm",
                         "h100-pcie",
                         "h100-sxm",
                         "h100-nvl",
                         "h200-sxm",
                         "b200",
                         "gh200",
                         "rx-7900-xtx",
                         "radeon-pro-w7900",
                         "mi210",
                         "mi250x",
                         "mi250x-gcd",
                         "mi300x",
                         "mi325x",
                         "arc-a770-16gb",
                         "arc-b580",
                         "max-1550",
                         "gaudi-2",
                         "gaudi-3",
                         "ascend-910b",
                         "apple-m4-max"})
    CHECK(c.find(id) != nullptr);
}

TEST_CASE("an overlay replaces records by id and keeps the rest") {
  Catalog c = load_catalog({kFixtures + "small.json", {kFixtures + "overlay_prices.json"}});
  CHECK(c.gpus.size() == 7);
  const Gpu& g = require_gpu(c, "rtx-4090");
  REQUIRE(g.prices.size() == 1);
  CHECK(g.prices[0].currency == "CNY");
  CHECK(g.prices[0].amount == 11999);
  CHECK(c.gpus.front().id == "rtx-4090");  // replaced in place, order kept
}

TEST_CASE("unknown ids get the nearest ids as suggestions") {
  const Catalog c = catalog_fixture("small.json");
  try {
    require_gpu(c, "rtx-4009");
    FAIL("accepted an unknown id");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    CHECK(std::string(e.what()).find("did you mean rtx-4090") != std::string::npos);
  }
}

TEST_CASE("bad catalog files are data errors (exit 3) that name the file") {
  for (const char* bad : {"empty.json", "truncated.json", "wrong_types.json", "deep.json",
                          "not_a_catalog.json", "nope.json"}) {
    INFO(bad);
    CHECK(code_of([&] { catalog_fixture(bad); }) == ExitCode::data);
  }
  CHECK(code_of([] { load_catalog({GPUSEL_FIXTURES, {}}); }) == ExitCode::data);
  try {
    catalog_fixture("truncated.json");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).rfind(kFixtures + "truncated.json:", 0) == 0);
  }
}

namespace {

// A catalog of `n` copies of small.json's first card, each written on its own lines; the
// card at `bad` (if any) gets a negative memory size.
std::string copies(std::size_t n, std::size_t bad) {
  nlohmann::json doc = nlohmann::json::parse(read_file(kFixtures + "small.json"));
  const nlohmann::json card = doc["gpus"][0];
  doc["gpus"] = nlohmann::json::array();
  for (std::size_t i = 0; i < n; ++i) {
    nlohmann::json c = card;
    c["id"] = "card-" + std::to_string(i);
    if (i == bad) c["vram_gb"] = -1;
    doc["gpus"].push_back(c);
  }
  return doc.dump(1);
}

std::string refusal(const std::string& text, bool record_text) {
  try {
    catalog_from_text(text, "many.json", false, record_text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("cards read without their text: the file's memory goes, findings keep their place") {
  // Over twice the loader's release step (256 KiB) of cards before the last one.
  const std::size_t n = 200;
  const std::string good = copies(n, n);
  REQUIRE(good.size() > (std::size_t{2} << 18));
  const Catalog with = catalog_from_text(good, "many.json", false, true);
  const Catalog without = catalog_from_text(good, "many.json", false, false);
  REQUIRE(without.gpus.size() == n);
  CHECK(without.gpus.back().id == "card-199");
  CHECK(without.gpus.back().vram_gb == with.gpus.back().vram_gb);
  CHECK(without.gpus.back().raw() == nlohmann::json::object());
  CHECK(with.gpus.back().raw().at("id") == "card-199");
  for (std::size_t bad : {std::size_t{1}, n - 1}) {
    INFO(bad);
    const std::string kept = refusal(copies(n, bad), true);
    CHECK(kept.find("/gpus/" + std::to_string(bad) + "/vram_gb") != std::string::npos);
    CHECK(refusal(copies(n, bad), false) == kept);  // the same file:line:col
  }
}

TEST_CASE("compute_capability reads NVIDIA platform targets, 0 for any other") {
  CHECK(compute_capability("sm_80") == 80);
  CHECK(compute_capability("sm_121") == 121);
  CHECK(compute_capability("sm_70") == 70);
  CHECK(compute_capability("gfx942") == 0);
  CHECK(compute_capability("apple9") == 0);
  CHECK(compute_capability("sm_") == 0);
  CHECK(compute_capability("sm_8x") == 0);
  CHECK(compute_capability("sm_999999999") == 0);
}

TEST_CASE("TPP is dense TOPS x operand bits, the highest over precisions (ECCN 3A090)") {
  const Catalog c = load_catalog({});
  // Published figures: the H100's 1979 dense FP8 TFLOPS x 8; the RTX 4090 D was cut to 4707
  // to stay under the 4800 line the RTX 4090 (660.6 INT8 TOPS x 8) crosses.
  CHECK(require_gpu(c, "h100-sxm").tpp() == Approx(15832).epsilon(0.001));
  CHECK(require_gpu(c, "rtx-4090").tpp() == Approx(5284.8).epsilon(0.001));
  CHECK(require_gpu(c, "rtx-4090-d").tpp() < 4800);
  CHECK(require_gpu(c, "h20").tpp() < 4800);
  // A card with no tensor rate counts its FP32 rate at 32 bits.
  Gpu plain;
  plain.fp32_tflops = 10;
  CHECK(plain.tpp() == Approx(320));
  plain.int8_tops_dense = 100;
  CHECK(plain.tpp() == Approx(800));
}
