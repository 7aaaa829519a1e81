// `gpusel catalog validate`: the CI gate for data files.
#include <fmt/format.h>
#include <chrono>

#include "cli/context.hpp"
#include "cli/render.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/validate.hpp"

namespace gpusel::cli {
namespace {

struct ValidateArgs {
  std::vector<std::string> files;
  std::string format = "text", as_of;
  bool strict = false;
};

std::string today() {
  const auto now = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  const std::chrono::year_month_day ymd{now};
  return fmt::format("{:04}-{:02}-{:02}", int(ymd.year()), unsigned(ymd.month()),
                     unsigned(ymd.day()));
}

const char* severity(Severity s) {
  return s == Severity::error ? "error" : s == Severity::warning ? "warning" : "note";
}

std::string text_line(const Diagnostic& d) {
  return fmt::format("{}:{}:{}: {}: {} [{}]{}\n", d.file, d.pos.line, d.pos.column,
                     severity(d.severity), d.message, d.check,
                     d.pointer.empty() ? "" : " at " + d.pointer);
}

// GitHub Actions workflow commands: annotations on the pull request's diff.
std::string github_line(const Diagnostic& d) {
  const char* level = d.severity == Severity::note ? "notice" : severity(d.severity);
  return fmt::format("::{} file={},line={},col={},title={}::{}\n", level, d.file, d.pos.line,
                     d.pos.column, d.check, d.message);
}

nlohmann::json diag_json(const Diagnostic& d) {
  return {{"severity", severity(d.severity)},
          {"file", d.file},
          {"line", d.pos.line},
          {"column", d.pos.column},
          {"pointer", d.pointer},
          {"check", d.check},
          {"message", d.message}};
}

struct Input {
  std::string name, text;
};

// No FILE: every embedded data file that has a validator.
std::vector<Input> inputs(const ValidateArgs& a) {
  std::vector<Input> in;
  for (const auto& f : a.files) in.push_back({f, read_file(f)});
  if (in.empty())
    for (const char* p : {"data/gpus.json", "data/cloud.json", "data/models.json"})
      for (const auto& e : embedded_files())
        if (e.path == p) in.push_back({std::string(p), std::string(e.text)});
  return in;
}

int run_validate(Context& ctx, const ValidateArgs& a) {
  if (a.format != "text" && a.format != "json" && a.format != "github")
    throw usage_error("unknown format '" + a.format + "' (use text, json or github)");
  if (!a.as_of.empty() && a.as_of != "reviewed" && !is_date(a.as_of))
    throw usage_error("--as-of '" + a.as_of + "' is not a date (YYYY-MM-DD or 'reviewed')");
  ValidateOptions opt{a.as_of.empty() ? today() : a.as_of, nullptr};
  ValidationReport all;
  nlohmann::json files = nlohmann::json::array();
  for (const auto& in : inputs(a)) {
    if (in.text.find("\"offers\"") != std::string::npos) opt.gpus = &ctx.catalog();
    auto r = validate_document(in.text, in.name, opt);
    files.push_back({{"file", in.name},
                     {"errors", r.count(Severity::error)},
                     {"warnings", r.count(Severity::warning)},
                     {"notes", r.count(Severity::note)}});
    all.diagnostics.insert(all.diagnostics.end(), r.diagnostics.begin(), r.diagnostics.end());
  }
  const bool ok = all.passed(a.strict);
  std::string out;
  if (a.format == "json") {
    nlohmann::json j{{"schema_version", 1}, {"passed", ok},
                     {"strict", a.strict},  {"as_of", opt.as_of},
                     {"files", files},      {"diagnostics", nlohmann::json::array()}};
    for (const auto& d : all.diagnostics) j["diagnostics"].push_back(diag_json(d));
    out = j.dump(2) + "\n";
  } else {
    for (const auto& d : all.diagnostics)
      out += a.format == "github" ? github_line(d) : text_line(d);
    out += fmt::format("{} file(s): {} error(s), {} warning(s), {} note(s){}: {}\n", files.size(),
                       all.count(Severity::error), all.count(Severity::warning),
                       all.count(Severity::note), a.strict ? " (strict)" : "",
                       ok ? "passed" : "FAILED");
  }
  *ctx.out << out << std::flush;
  return ok ? 0 : static_cast<int>(ExitCode::negative);
}

}  // namespace

void add_validate_command(CLI::App& catalog, Context& ctx) {
  auto a = std::make_shared<ValidateArgs>();
  auto* cmd = catalog.add_subcommand(
      "validate", "Check catalog/cloud/models files: syntax, schema, physics, dates, sources");
  cmd->add_option("files", a->files, "files to check (default: the embedded data)");
  cmd->add_option("--format", a->format, "text, json or github (annotations)")
      ->capture_default_str();
  cmd->add_flag("--strict", a->strict, "warnings (stale prices, unknown fields) fail too");
  cmd->add_option("--as-of", a->as_of,
                  "date prices are aged against: YYYY-MM-DD (default today) or 'reviewed'");
  cmd->callback([&ctx, a] { ctx.action = [&ctx, a] { return run_validate(ctx, *a); }; });
}

}  // namespace gpusel::cli
