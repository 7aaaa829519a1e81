// `gpusel catalog validate`: the CI gate for data files.
#include <fmt/format.h>

#include "cli/context.hpp"
#include "cli/render.hpp"
#include "gpusel/answer/answers.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/input_text.hpp"
#include "gpusel/base/output_guard.hpp"
#include "gpusel/base/text.hpp"

namespace gpusel::cli {
namespace {

struct ValidateArgs {
  std::vector<std::string> files;
  std::string format = "table", as_of;
  bool strict = false;
};

const char* severity(Severity s) {
  return s == Severity::error ? "error" : s == Severity::warning ? "warning" : "note";
}

std::string text_line(const Diagnostic& d) {
  // A file name is input too: a newline or escape in it must not forge a line of its own.
  return fmt::format("{}:{}:{}: {}: {} [{}]{}\n", safe_cell(d.file), d.pos.line, d.pos.column,
                     severity(d.severity), safe_cell(d.message), d.check,
                     d.pointer.empty() ? "" : " at " + safe_cell(d.pointer));
}

// GitHub Actions workflow commands: annotations on the pull request's diff. Every value is
// escaped as the runner reads them, so a key or message from the file (a newline, "::")
// cannot end the annotation or issue a command of its own (::add-mask::, ::error).
std::string github_line(const Diagnostic& d) {
  const char* level = d.severity == Severity::note ? "notice" : severity(d.severity);
  return fmt::format("::{} file={},line={},col={},title={}::{}\n", level,
                     github_property(safe_cell(d.file)), d.pos.line, d.pos.column,
                     github_property(d.check), github_data(d.message));
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

// The files named after `validate`, else those the global --catalog/--cloud options name
// (`catalog validate --cloud mine.json` checks mine.json, not the embedded data); none: the
// embedded data.
std::vector<std::string> files_to_check(const Context& ctx, const ValidateArgs& a) {
  if (!a.files.empty()) return a.files;
  std::vector<std::string> out;
  if (!ctx.paths.catalog.empty()) out.push_back(ctx.paths.catalog);
  out.insert(out.end(), ctx.paths.catalog_add.begin(), ctx.paths.catalog_add.end());
  if (!ctx.cloud_paths.cloud.empty()) out.push_back(ctx.cloud_paths.cloud);
  out.insert(out.end(), ctx.cloud_paths.cloud_add.begin(), ctx.cloud_paths.cloud_add.end());
  return out;
}

int run_validate(Context& ctx, const ValidateArgs& a) {
  const Format format = parse_format(a.format, {Format::table, Format::json, Format::github});
  if (!a.as_of.empty() && a.as_of != "reviewed" && !is_date(a.as_of))
    throw usage_error("--as-of '" + quote_input(a.as_of) +
                      "' is not a date (YYYY-MM-DD or 'reviewed')");
  std::vector<DataFile> in;
  for (const auto& f : files_to_check(ctx, a)) in.push_back({f, InputText::read(f)});
  const ValidateAnswer ans = validate_data(
      std::move(in), [&ctx]() -> const Catalog& { return ctx.catalog(); }, a.as_of, a.strict);
  const ValidationReport& all = ans.report;
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : ans.files)
    files.push_back(
        {{"file", f.name}, {"errors", f.errors}, {"warnings", f.warnings}, {"notes", f.notes}});
  const bool ok = ans.passed;
  Output o;
  std::string& out = o.before;
  if (format == Format::json) {
    nlohmann::json j{{"schema_version", 1}, {"passed", ok},
                     {"strict", a.strict},  {"as_of", ans.as_of},
                     {"files", files},      {"diagnostics", nlohmann::json::array()}};
    for (const auto& d : all.diagnostics) j["diagnostics"].push_back(diag_json(d));
    o.json = j;
  } else {
    for (const auto& d : all.diagnostics)
      out += format == Format::github ? github_line(d) : text_line(d);
    out += fmt::format("{} file(s): {} error(s), {} warning(s), {} note(s){}: {}\n", files.size(),
                       all.count(Severity::error), all.count(Severity::warning),
                       all.count(Severity::note), a.strict ? " (strict)" : "",
                       ok ? "passed" : "FAILED");
  }
  if (format == Format::github) {
    // Escaped line by line above; its own commands stay, any other a CI runner reads goes.
    *ctx.out << guard_output(out, OutputKind::text, false) << std::flush;
  } else {
    o.highlights = {{": error:", Tone::bad},
                    {": warning:", Tone::warn},
                    {"FAILED", Tone::bad},
                    {": passed", Tone::good}};
    emit(*ctx.out, o, format);
  }
  return ok ? 0 : static_cast<int>(ExitCode::negative);
}

}  // namespace

void add_validate_command(CLI::App& catalog, Context& ctx) {
  auto a = std::make_shared<ValidateArgs>();
  auto* cmd = catalog.add_subcommand(
      "validate", "Check catalog/cloud/models files: syntax, schema, physics, dates, sources");
  cmd->add_option("files", a->files, "files to check (default: the embedded data)");
  cmd->add_option("--format", a->format,
                  "table|json|github (default table; text = table; github: workflow "
                  "annotations)");
  cmd->add_flag("--strict", a->strict, "warnings (stale prices, unknown fields) fail too");
  cmd->add_option("--as-of", a->as_of,
                  "date prices are aged against: YYYY-MM-DD (default today) or 'reviewed'");
  cmd->callback([&ctx, a] { ctx.action = [&ctx, a] { return run_validate(ctx, *a); }; });
}

}  // namespace gpusel::cli
