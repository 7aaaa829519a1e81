#pragma once
// `gpusel catalog validate`: syntax, schema and semantic checks of gpusel's data files,
// each finding located by file, line and JSON pointer so CI can annotate it.
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/json/json_source.hpp"

namespace gpusel {

// note: worth knowing, never fails a run (a card without any price, say).
enum class Severity { error, warning, note };

struct Diagnostic {
  Severity severity = Severity::error;
  std::string file;
  SourcePos pos;
  std::string pointer;  // JSON pointer of the value concerned ("" for the document)
  std::string check;    // syntax | schema | unknown-field | a semantic check's name
  std::string message;
};

struct ValidateOptions {
  std::string as_of;  // YYYY-MM-DD that price ages are measured against; "reviewed" = the
                      // file's own "reviewed" date (CI pins it so the calendar can't fail a build)
  const Catalog* gpus = nullptr;  // for cross references from cloud offers to GPU ids
};

struct ValidationReport {
  std::vector<Diagnostic> diagnostics;
  int count(Severity s) const;
  // Errors always fail; warnings fail only under --strict.
  bool passed(bool strict) const;
};

// Validates one document, recognising it by its top-level list: "gpus", "offers" or "models".
ValidationReport validate_document(std::string_view text, const std::string& file,
                                   const ValidateOptions& options);

// Whole days from `from` to `to` (both YYYY-MM-DD); throws Error(usage) on a malformed date.
long days_between(const std::string& from, const std::string& to);
bool is_date(std::string_view s);

}  // namespace gpusel
