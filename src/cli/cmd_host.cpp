// `gpusel detect` (the accelerators in this machine, matched to the catalog) and `gpusel
// doctor` (the environment checks of the troubleshooting table).
#include <fmt/format.h>

#include "cli/cmd_host.hpp"
#include "cli/render.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/host/doctor.hpp"

namespace gpusel::cli {
namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }

std::string gib_or_dash(const std::optional<double>& v) { return v ? gib(*v) : "-"; }

json device_json(const Device& d) {
  json candidates = json::array();
  for (const auto* g : d.candidates) candidates.push_back(g->id);
  std::optional<double> free;
  if (d.total_bytes && d.used_bytes) free = *d.total_bytes - *d.used_bytes;
  return {{"tool", d.tool},
          {"vendor", d.vendor},
          {"name", d.name},
          {"gpu", d.gpu ? json(d.gpu->id) : json()},
          {"candidates", candidates},
          {"match", d.match},
          {"total_bytes", opt(d.total_bytes)},
          {"used_bytes", opt(d.used_bytes)},
          {"free_bytes", opt(free)},
          {"driver", d.driver},
          {"bus_id", d.bus_id},
          {"cores", d.cores ? json(*d.cores) : json()}};
}

json tools_json(const DetectAnswer& a) {
  json out = json::array();
  for (const auto& t : a.tools)
    out.push_back({{"tool", t.tool},
                   {"argv", t.argv},
                   {"found", t.found},
                   {"ok", t.ok},
                   {"devices", t.devices},
                   {"message", t.message}});
  return out;
}

std::string tools_text(const DetectAnswer& a) {
  std::string s = "Tools:\n";
  for (const auto& t : a.tools)
    s += fmt::format("  {:<16}{}\n", t.tool,
                     !t.found                ? "not installed"
                     : t.ok && t.devices > 0 ? fmt::format("{} device(s)", t.devices)
                                             : t.message);
  return s;
}

Output detect_output(const DetectAnswer& a) {
  Output o;
  o.table = {{{"#", true},
              {"tool"},
              {"name"},
              {"catalog id"},
              {"memory GiB", true},
              {"used GiB", true},
              {"free GiB", true},
              {"driver"},
              {"bus"}},
             {}};
  int i = 0;
  for (const auto& d : a.devices) {
    std::optional<double> free;
    if (d.total_bytes && d.used_bytes) free = *d.total_bytes - *d.used_bytes;
    o.table.rows.push_back({std::to_string(i++), d.tool, d.name, d.gpu ? d.gpu->id : "unknown",
                            gib_or_dash(d.total_bytes), gib_or_dash(d.used_bytes),
                            gib_or_dash(free), d.driver.empty() ? "-" : d.driver,
                            d.bus_id.empty() ? "-" : d.bus_id});
  }
  std::string notes;
  for (const auto& d : a.devices)
    notes += fmt::format("  {}: {}\n", d.name, d.gpu ? d.gpu->id + " " + d.match : d.match);
  o.after = "\nMatched to the catalog:\n" + notes + "\n" + tools_text(a);
  o.json = {{"schema_version", 1}, {"devices", json::array()}, {"tools", tools_json(a)}};
  for (const auto& d : a.devices) o.json["devices"].push_back(device_json(d));
  if (a.devices.empty()) {
    o.table = {};
    o.before = a.any_tool() ? "No accelerator found: the tools below ran but listed none.\n\n"
                            : "No accelerator found: none of nvidia-smi, rocm-smi, npu-smi, "
                              "xpu-smi or system_profiler is installed (on PATH).\n\n";
    o.after = tools_text(a);
  }
  return o;
}

struct HostArgs {
  std::string format = "table";
};

int run_detect(Context& ctx, const HostArgs& a) {
  const Format f = parse_format(a.format);
  const DetectAnswer ans = detect(ctx.catalog(), system_runner());
  emit(*ctx.out, detect_output(ans), f);
  return ans.devices.empty() ? static_cast<int>(ExitCode::negative) : 0;
}

std::string mark(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass:
      return "[pass]";
    case CheckStatus::warn:
      return "[WARN]";
    case CheckStatus::fail:
      return "[FAIL]";
    case CheckStatus::skip:
      break;
  }
  return "[skip]";
}

Output doctor_output(const DoctorAnswer& a) {
  Output o;
  o.table = {{{"status"}, {"check"}, {"finding"}, {"fix"}, {"source"}}, {}};
  o.json = {{"schema_version", 1}, {"checks", json::array()}};
  std::size_t w = 0;
  for (const auto& c : a.checks) w = std::max(w, c.id.size());
  for (const auto& c : a.checks) {
    o.before += fmt::format("{} {:<{}}  {}\n", mark(c.status), c.id, w, c.finding);
    if (!c.fix.empty()) o.before += fmt::format("       {:<{}}  fix: {}\n", "", w, c.fix);
    o.table.rows.push_back({to_string(c.status), c.id, c.finding, c.fix, c.source});
    o.json["checks"].push_back({{"id", c.id},
                                {"status", to_string(c.status)},
                                {"finding", c.finding},
                                {"fix", c.fix},
                                {"source", c.source}});
  }
  const int pass = a.count(CheckStatus::pass), warn = a.count(CheckStatus::warn),
            fail = a.count(CheckStatus::fail), skip = a.count(CheckStatus::skip);
  o.after = fmt::format("\n{} passed, {} warning{}, {} failed, {} skipped\n", pass, warn,
                        warn == 1 ? "" : "s", fail, skip);
  o.json["summary"] = {{"pass", pass}, {"warn", warn}, {"fail", fail}, {"skip", skip}};
  o.json["devices"] = json::array();
  for (const auto& d : a.facts.detected.devices) o.json["devices"].push_back(device_json(d));
  return o;
}

int run_doctor(Context& ctx, const HostArgs& a) {
  const Format f = parse_format(a.format);
  const DoctorAnswer ans = doctor(ctx.catalog(), system_runner());
  Output o = doctor_output(ans);
  if (f == Format::table) o.table = {};  // the lines above say it for people
  emit(*ctx.out, o, f);
  return ans.failed() ? static_cast<int>(ExitCode::negative) : 0;
}

}  // namespace

LocalCards local_gpus(Context& ctx) { return local_cards(detect(ctx.catalog(), system_runner())); }

std::string in_use_note(const LocalCards& local) {
  if (local.used_bytes < 512.0 * 1024 * 1024) return "";
  return fmt::format("Note: {} GiB of one {} in this machine is in use now (other processes)\n",
                     gib(local.used_bytes), local.gpu->id);
}

void add_host_commands(CLI::App& app, Context& ctx) {
  auto d = std::make_shared<HostArgs>();
  auto* det = app.add_subcommand(
      "detect",
      "The accelerators in this machine (nvidia-smi, rocm-smi, npu-smi, xpu-smi, "
      "system_profiler), matched to the catalog; exit 1 when none");
  det->add_option("--format", d->format, "table, json or csv")->capture_default_str();
  det->callback([&ctx, d] { ctx.action = [&ctx, d] { return run_detect(ctx, *d); }; });
  auto g = std::make_shared<HostArgs>();
  auto* doc = app.add_subcommand(
      "doctor",
      "Check the driver, PyTorch build, WSL2, NCCL and ROCm/CANN stacks; exit 1 when "
      "a check fails");
  doc->add_option("--format", g->format, "table, json or csv")->capture_default_str();
  doc->callback([&ctx, g] { ctx.action = [&ctx, g] { return run_doctor(ctx, *g); }; });
}

}  // namespace gpusel::cli
