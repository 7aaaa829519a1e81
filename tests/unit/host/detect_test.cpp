// The tool parsers on captured outputs (tests/fixtures/detect/README.md says where each comes
// from), name matching against the embedded catalog, and detect/local_cards on fake runners.
#include "gpusel/host/detect.hpp"

#include <catch2/catch.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "ranker_fixtures.hpp"

using namespace gpusel;
using ranker_fixtures::catalog;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string capture(const std::string& name) {
  return read_file(GPUSEL_FIXTURES "/detect/captures/" + name);
}

// A device as a tool would report it, matched against the embedded catalog.
Device matched(const std::string& tool, const std::string& vendor, const std::string& name,
               std::optional<double> gib = std::nullopt, std::optional<int> cores = std::nullopt) {
  Device d;
  d.tool = tool, d.vendor = vendor, d.name = name, d.cores = cores;
  if (gib) d.total_bytes = *gib * 1024 * kMiB;
  match_device(d, catalog(), load_device_aliases());
  return d;
}

std::string id_of(const Device& d) { return d.gpu ? d.gpu->id : "unknown"; }

// A runner that answers from a table of captures and says every other tool is missing.
ToolRunner fake(std::map<std::string, ToolResult> answers) {
  return [answers](const std::vector<std::string>& argv) {
    const auto it = answers.find(argv.front());
    return it == answers.end() ? ToolResult{} : it->second;
  };
}

ToolResult ran(std::string out, int code = 0) {
  ToolResult r;
  r.found = r.started = true;
  r.exit_code = code;
  r.out = std::move(out);
  return r;
}

}  // namespace

TEST_CASE("nvidia-smi's CSV query: each GPU's name, memory, driver and bus") {
  const auto ds = parse_nvidia_smi_csv(capture("nvidia-smi-a800-2x.csv"));
  REQUIRE(ds.size() == 2);
  CHECK(ds[0].name == "NVIDIA A800-SXM4-80GB");
  CHECK(ds[0].total_bytes == Approx(81920 * kMiB));
  CHECK(ds[0].used_bytes == Approx(34447 * kMiB));
  CHECK(ds[1].used_bytes == Approx(34639 * kMiB));
  CHECK(ds[0].driver == "535.86.10");
  CHECK(ds[1].bus_id == "00000000:2A:00.0");
}

TEST_CASE("nvidia-smi on a unified-memory GB10: no memory figure, matched by its alias") {
  auto ds = parse_nvidia_smi_csv(capture("nvidia-smi-gb10.csv"));
  REQUIRE(ds.size() == 1);
  CHECK_FALSE(ds[0].total_bytes);
  match_device(ds[0], catalog(), load_device_aliases());
  CHECK(id_of(ds[0]) == "dgx-spark");
}

TEST_CASE("nvidia-smi text that is not the CSV (an error, no devices) gives no device") {
  CHECK(parse_nvidia_smi_csv(capture("nvidia-smi-wsl-nvml.txt")).empty());
  CHECK(parse_nvidia_smi_csv("No devices were found\n").empty());
  CHECK(parse_nvidia_smi_csv("").empty());
}

TEST_CASE("rocm-smi's JSON: series name, memory in bytes, warnings before it are skipped") {
  auto ds = parse_rocm_smi_json("WARNING: AMD GPU device(s) is/are in a low-power state\n" +
                                capture("rocm-smi-rx7900xt.json"));
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].name == "Radeon RX 7900 XT");
  CHECK(ds[0].total_bytes == Approx(21458059264.0));
  CHECK(ds[0].used_bytes == Approx(27856896.0));
  match_device(ds[0], catalog(), {});
  CHECK(id_of(ds[0]) == "rx-7900-xt");
}

TEST_CASE("rocm-smi's pci.ids names ('Navi 31 [Radeon RX 7900 XT/7900 XTX]') resolve by memory") {
  const std::string doc =
      R"json({"card0": {"Card series": "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]",
      "Card model": "0x744c", "VRAM Total Memory (B)": "25753026560"},
      "system": {"Driver version": "6.8.5"}})json";
  auto ds = parse_rocm_smi_json(doc);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].driver == "6.8.5");
  match_device(ds[0], catalog(), {});
  CHECK(id_of(ds[0]) == "rx-7900-xtx");
}

TEST_CASE("npu-smi info: one device per chip, HBM used/total, the tool's version as driver") {
  const auto ds = parse_npu_smi_info(capture("npu-smi-910b4-1.txt"));
  REQUIRE(ds.size() == 2);
  CHECK(ds[0].name == "910B4-1");
  CHECK(ds[0].total_bytes == Approx(65536 * kMiB));
  CHECK(ds[0].used_bytes == Approx(3197 * kMiB));
  CHECK(ds[0].driver == "25.2.0");
  CHECK(ds[0].bus_id == "0000:xx:00.0");
  const auto a3 = parse_npu_smi_info(capture("npu-smi-ascend910-a3.txt"));
  REQUIRE(a3.size() == 3);
  CHECK(a3[1].bus_id == "0000:9F:00.0");
  CHECK(a3[2].used_bytes == Approx(3415 * kMiB));
}

TEST_CASE("Ascend names: 910B4-1 by its alias, Ascend910 chips of 64 GiB are not the 128 GB 910C") {
  auto ds = parse_npu_smi_info(capture("npu-smi-910b4-1.txt"));
  match_device(ds[0], catalog(), load_device_aliases());
  CHECK(id_of(ds[0]) == "ascend-910b");
  auto a3 = parse_npu_smi_info(capture("npu-smi-ascend910-a3.txt"));
  match_device(a3[0], catalog(), load_device_aliases());
  CHECK(id_of(a3[0]) == "unknown");
  CHECK_THAT(a3[0].match, Catch::StartsWith("not in the catalog"));
}

TEST_CASE("xpu-smi discovery: a device per id, unknown parts reported as unknown") {
  auto b60 = parse_xpu_smi_discovery(capture("xpu-smi-arc-pro-b60.txt"));
  REQUIRE(b60.size() == 1);
  CHECK(b60[0].bus_id == "0000:17:00.0");
  match_device(b60[0], catalog(), {});
  CHECK(id_of(b60[0]) == "arc-pro-b60");
  auto two = parse_xpu_smi_discovery(capture("xpu-smi-uhd770-flex140.txt"));
  REQUIRE(two.size() == 2);
  CHECK(two[1].name == "Intel(R) Data Center GPU Flex 140");
  for (auto& d : two) match_device(d, catalog(), {});
  CHECK(id_of(two[0]) == "unknown");
  CHECK(id_of(two[1]) == "unknown");
}

TEST_CASE("system_profiler: Apple GPU with its cores and the machine's memory") {
  auto ds = parse_system_profiler_json(capture("system_profiler-m4-max.json"));
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].vendor == "apple");
  CHECK(ds[0].cores == 40);
  CHECK(ds[0].total_bytes == Approx(128.0 * 1024 * kMiB));
  CHECK(ds[0].integrated);
  match_device(ds[0], catalog(), {});
  CHECK(id_of(ds[0]) == "apple-m4-max");
  auto m3 = parse_system_profiler_json(capture("system_profiler-m3-pro.json"));
  match_device(m3.at(0), catalog(), {});
  CHECK(id_of(m3[0]) == "unknown");
}

TEST_CASE("an internal _name is not the model: sppci_model is read first") {
  const auto ds = parse_system_profiler_json(
      R"({"SPDisplaysDataType": [{"_name": "kHW_AppleM1Item", "sppci_model": "Apple M1", "sppci_cores": "8"}]})");
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].name == "Apple M1");
}

TEST_CASE("fuzzy names: the tool's spelling finds the catalog card") {
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA GeForce RTX 4090", 23.99)) == "rtx-4090");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA GeForce RTX 4090 D", 23.99)) == "rtx-4090-d");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA GeForce RTX 4090", 47.99)) ==
        "rtx-4090-48gb-cn");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "Tesla T4", 15.0)) == "t4");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA L40S", 46068 / 1024.0)) == "l40s");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA A100-SXM4-40GB", 40.0)) == "a100-40gb-sxm");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA A100-PCIE-40GB", 40.0)) == "a100-40gb-pcie");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA A100 80GB PCIe", 80.0)) == "a100-80gb-pcie");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA RTX A6000", 47.99)) == "rtx-a6000");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA RTX 6000 Ada Generation", 47.99)) ==
        "rtx-6000-ada");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA H100 NVL", 93.6)) == "h100-nvl");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA H20", 95.6)) == "h20");
  CHECK(id_of(matched("rocm-smi", "amd", "AMD Instinct MI300X", 191.7)) == "mi300x");
  CHECK(id_of(matched("xpu-smi", "intel", "Intel(R) Data Center GPU Max 1550", 128.0)) ==
        "max-1550");
  CHECK(id_of(matched("system_profiler", "apple", "Apple M2 Ultra", 192.0, 76)) ==
        "apple-m2-ultra");
}

TEST_CASE("older and smaller cards users benchmark are found by their tool names") {
  // nvidia-smi spellings; a P40 with ECC on reports 22,919 MiB of its 24 GB.
  CHECK(id_of(matched("nvidia-smi", "nvidia", "Tesla P40", 22919 / 1024.0)) == "tesla-p40");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "Tesla P100-PCIE-16GB", 15.9)) ==
        "tesla-p100-pcie-16gb");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA GeForce RTX 2080 Ti", 11.0)) ==
        "rtx-2080-ti");
  // One name, two memory sizes: the memory picks the card.
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA GeForce RTX 4060 Ti", 7.99)) ==
        "rtx-4060-ti-8gb");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA GeForce RTX 4060 Ti", 15.99)) ==
        "rtx-4060-ti-16gb");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA GeForce RTX 4060", 7.99)) == "rtx-4060");
  CHECK(id_of(matched("rocm-smi", "amd", "AMD Radeon RX 7800 XT", 16.0)) == "rx-7800-xt");
  CHECK(id_of(matched("xpu-smi", "intel", "Intel(R) Arc(TM) A750 Graphics", 8.0)) == "arc-a750");
  CHECK(id_of(matched("system_profiler", "apple", "Apple M4", 32.0, 10)) == "apple-m4");
  CHECK(id_of(matched("system_profiler", "apple", "Apple M4", 16.0, 8)) == "unknown");
}

TEST_CASE("a laptop GPU, the Turing TITAN and Quadro, and one GCD of an MI250X are found") {
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA GeForce RTX 4070 Laptop GPU", 7.99)) ==
        "rtx-4070-laptop");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA TITAN RTX", 23.99)) == "titan-rtx");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "Quadro RTX 8000", 47.99)) == "quadro-rtx-8000");
  // ROCm lists each GCD of an MI250X as a GPU of 64 GB: the memory picks the GCD record.
  CHECK(id_of(matched("rocm-smi", "amd", "AMD Instinct MI250X", 64.0)) == "mi250x-gcd");
}

TEST_CASE("NVIDIA names a PCIe board as such: a bare 'H100 80GB HBM3' is the SXM module") {
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA H100 80GB HBM3", 79.65)) == "h100-sxm");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA H100 PCIe", 79.65)) == "h100-pcie");
}

TEST_CASE("a known name with the wrong memory or core count is unknown, and says why") {
  const Device d3080 = matched("nvidia-smi", "nvidia", "NVIDIA GeForce RTX 3080", 16.0);
  CHECK(id_of(d3080) == "unknown");
  CHECK_THAT(d3080.match, Catch::Contains("this one 16 GiB"));
  const Device m1 = matched("system_profiler", "apple", "Apple M1 Max", 64.0, 28);
  CHECK(id_of(m1) == "unknown");
  CHECK_THAT(m1.match, Catch::Contains("GPU cores, this one 28"));
}

TEST_CASE("memory and core count pick the variant of a name") {
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA GeForce RTX 3060", 8.0)) == "rtx-3060-8gb");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA GeForce RTX 3060", 11.76)) ==
        "rtx-3060-12gb");
  CHECK(id_of(matched("system_profiler", "apple", "Apple M2 Ultra", 192.0, 60)) ==
        "apple-m2-ultra-60c");
  CHECK(id_of(matched("system_profiler", "apple", "Apple M2 Ultra", 192.0, 76)) ==
        "apple-m2-ultra");
}

TEST_CASE("names outside the catalog, or of another vendor, stay unknown") {
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA GeForce GTX 970", 4.0)) == "unknown");
  CHECK(id_of(matched("nvidia-smi", "nvidia", "NVIDIA RTX PRO 6000 Blackwell Server Edition",
                      95.6)) == "unknown");
  CHECK(id_of(matched("rocm-smi", "amd", "NVIDIA GeForce RTX 4090", 24.0)) == "unknown");
}

TEST_CASE("detect runs every tool, reports the missing and the failing, and matches devices") {
  std::map<std::string, ToolResult> answers{{"nvidia-smi", ran(capture("nvidia-smi-a800-2x.csv"))},
                                            {"npu-smi", ran("", 1)}};
  answers["npu-smi"].err =
      "dcmi model initialized failed, because the device is used. ret is -8020\n";
  const DetectAnswer a = detect(catalog(), fake(answers));
  REQUIRE(a.tools.size() == 5);
  CHECK(a.tools[0].ok);
  CHECK(a.tools[0].devices == 2);
  CHECK_FALSE(a.tools[1].found);
  CHECK(a.tools[2].found);
  CHECK_FALSE(a.tools[2].ok);
  CHECK_THAT(a.tools[2].message, Catch::Contains("exit 1: dcmi model initialized failed"));
  REQUIRE(a.devices.size() == 2);
  CHECK(id_of(a.devices[0]) == "a800-80gb-sxm");
  const LocalCards local = local_cards(a);
  CHECK(local.gpu->id == "a800-80gb-sxm");
  CHECK(local.count == 2);
  CHECK(local.used_bytes == Approx(34639 * kMiB));
}

TEST_CASE(
    "local_cards (--gpu local): no tool, no device, unknown or mixed cards are a negative answer") {
  auto code = [](const DetectAnswer& a) {
    try {
      local_cards(a);
    } catch (const Error& e) {
      return std::make_pair(e.code(), std::string(e.what()));
    }
    return std::make_pair(ExitCode::ok, std::string());
  };
  const auto none = code(detect(catalog(), fake({})));
  CHECK(none.first == ExitCode::negative);
  CHECK_THAT(none.second, Catch::Contains("none of nvidia-smi, rocm-smi"));
  const auto unknown =
      code(detect(catalog(), fake({{"xpu-smi", ran(capture("xpu-smi-uhd770-flex140.txt"))}})));
  CHECK(unknown.first == ExitCode::negative);
  CHECK_THAT(unknown.second, Catch::Contains("Flex 140"));
  const auto mixed = code(detect(
      catalog(), fake({{"nvidia-smi", ran("NVIDIA GeForce RTX 4090, 24564, 1, 550.1, 0:1\n"
                                          "NVIDIA GeForce RTX 3090, 24576, 1, 550.1, 0:2\n")}})));
  CHECK(mixed.first == ExitCode::negative);
  CHECK_THAT(mixed.second, Catch::Contains("1x rtx-3090, 1x rtx-4090") ||
                               Catch::Contains("1x rtx-4090, 1x rtx-3090"));
}

TEST_CASE("control characters a device or its tool reports never reach gpusel's output") {
  // A name with a clear-screen and a window-title sequence, a driver with a colour code, and
  // a failing tool whose error line rings the bell.
  std::map<std::string, ToolResult> answers{
      {"nvidia-smi", ran("NVIDIA \x1b[2J\x1b]0;owned\x07 RTX 4090, 24564, 100, 550.54\x1b[31m, "
                         "0:1\n")},
      {"rocm-smi", ran("", 2)}};
  answers["rocm-smi"].err = "rocm-smi: \x07\x1b[1Afailed\r\n";
  const DetectAnswer a = detect(catalog(), fake(answers));
  REQUIRE(a.devices.size() == 1);
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(a.devices[0].name == "NVIDIA " + fffd + "[2J" + fffd + "]0;owned" + fffd + " RTX 4090");
  CHECK(a.devices[0].driver == "550.54" + fffd + "[31m");
  CHECK(a.tools[1].message == "exit 2: rocm-smi: " + fffd + fffd + "[1Afailed");
  for (const std::string& s : {a.devices[0].name, a.devices[0].driver, a.tools[1].message})
    for (char c : s) CHECK((static_cast<unsigned char>(c) >= 0x20 && c != 0x7F));
}

TEST_CASE("detect: memory figures out of range are unknown, never converted") {
  // A tool's 1e30 MiB would overflow an integer; memory in use beyond the total says nothing.
  const auto a = detect(
      catalog(), fake({{"nvidia-smi", ran("NVIDIA GeForce RTX 4090, 1e30, 0, 550.54, 01\n"
                                          "NVIDIA GeForce RTX 4090, 24564, 99999, 550.54, 02\n"
                                          "NVIDIA GeForce RTX 4090, -5, nan, 550.54, 03\n")}}));
  REQUIRE(a.devices.size() == 3);
  CHECK_FALSE(a.devices[0].total_bytes);
  CHECK(a.devices[1].total_bytes == Approx(24564 * kMiB));
  CHECK_FALSE(a.devices[1].used_bytes);
  CHECK_FALSE(a.devices[2].total_bytes);
  CHECK_FALSE(a.devices[2].used_bytes);
}

TEST_CASE("local_cards: a card the same tool lists but the catalog cannot tie stops the answer") {
  auto what = [](const DetectAnswer& a) {
    try {
      local_cards(a);
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::negative);
      return std::string(e.what());
    }
    return std::string();
  };
  const auto mixed = detect(
      catalog(), fake({{"nvidia-smi", ran("NVIDIA GeForce RTX 4090, 24564, 0, 550.54, 01\n"
                                          "Mystery Accelerator 9000, 81920, 0, 550.54, 02\n")}}));
  CHECK_THAT(what(mixed), Catch::Contains("Mystery Accelerator 9000"));
}
