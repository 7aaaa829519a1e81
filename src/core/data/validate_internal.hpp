#pragma once
// Shared by the data loaders and `catalog validate` (not a public header): one pass over a
// data document, record by record, running every check both use, so that a file the loader
// refuses is exactly a file validate reports an error in.
#include <array>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "gpusel/data/validate.hpp"
#include "json/json_flat.hpp"
#include "json/json_scan.hpp"

namespace gpusel {
class Schema;
}

namespace gpusel::detail {

// Collects findings for one document by JSON pointer; positions are looked up for all of
// them at once when the pass ends (one scan of the text, however many findings).
class Findings {
 public:
  Findings(std::string file, ValidationReport& report, bool errors_only)
      : file_(std::move(file)), report_(report), errors_only_(errors_only) {}
  void add(Severity s, const std::string& pointer, const std::string& check,
           const std::string& message);
  void error(const std::string& ptr, const std::string& check, const std::string& msg) {
    add(Severity::error, ptr, check, msg);
  }
  void warning(const std::string& ptr, const std::string& check, const std::string& msg) {
    add(Severity::warning, ptr, check, msg);
  }
  void note(const std::string& ptr, const std::string& check, const std::string& msg) {
    add(Severity::note, ptr, check, msg);
  }
  std::size_t errors() const { return errors_; }
  // What has been added so far, to take back what a record's fast reading found when the
  // record is read again the full way (document.cpp): diagnostics kept, errors, and errors
  // or warnings added (counted even when dropped unrecorded).
  struct Mark {
    std::size_t kept = 0, errors = 0, serious = 0;
  };
  Mark mark() const { return {report_.diagnostics.size(), errors_, serious_}; }
  bool serious_since(const Mark& m) const { return serious_ != m.serious; }
  void rollback(const Mark& m) {
    report_.diagnostics.resize(m.kept);
    errors_ = m.errors, serious_ = m.serious;
  }
  const std::string& file() const { return file_; }
  // The loaders need only errors: warnings and notes are dropped unrecorded.
  bool errors_only() const { return errors_only_; }
  bool none_recorded() const { return report_.diagnostics.empty(); }
  // A reading whose messages nobody reads (a record read ahead on a thread: one with a finding
  // is read again the full way, which words it): checks skip costly wording (suggestions).
  void unworded() { worded_ = false; }
  bool worded() const { return worded_; }

 private:
  std::string file_;
  ValidationReport& report_;
  bool errors_only_;
  std::size_t errors_ = 0;
  std::size_t serious_ = 0;
  bool worded_ = true;
};

// A kind of data document, recognised by its top-level list, with its schema and checks.
struct DocKind {
  const char* list;    // "gpus", "offers", "models", "platforms"
  const char* schema;  // the embedded schema that describes it
  const char* what;    // "a GPU catalog", for "not a ..." messages
  // Semantic checks of the document without its records (cloud defaults), and of one record.
  void (*check_top)(const nlohmann::json& outline, const ValidateOptions& o, Findings& f);
  void (*check_record)(const nlohmann::json& rec, const std::string& ptr, const ValidateOptions& o,
                       Findings& f);
  // The same checks of a record read as a flat tree (null: the kind is always read the full
  // way, through nlohmann's tree).
  void (*check_record_flat)(const json_detail::FlatValue& rec, const std::string& ptr,
                            const ValidateOptions& o, Findings& f) = nullptr;
};
const DocKind& gpus_kind();
const DocKind& offers_kind();
const DocKind& models_kind();
const DocKind& platforms_kind();
// The four, in the order a document's list is looked for; a kind's schema, read once.
const std::array<const DocKind*, 4>& all_kinds();
const Schema& schema_for(const DocKind& kind);
// The expected kind (null: any), else the first of all_kinds() the document has, and its list;
// the list is null, with the finding added, when the document has none or it is no array.
std::pair<const DocKind*, const json_detail::Outline::List*> pick_list(
    const json_detail::Outline& outline, const DocKind* expected, Findings& f);

// Where a record lies in the text given to check_document: [begin, end) byte offsets.
struct Span {
  std::size_t begin = 0, end = 0;
};

// What a loader does with a document: `top` reads the document without its records, `record`
// one record (index, record, "gpus[3] (id)" for messages, its span). An Error either throws
// becomes a finding of check "load", so validate reports it as the loader refuses it.
struct DocumentSink {
  // The document without its records' list (a trusted document: with it; no sink reads it).
  std::function<void(const nlohmann::json& outline)> top;
  // How many records the list holds, told before the first: a reader sizes its list once
  // (a 100,000-card catalog otherwise holds its old and new arrays while one grows).
  std::function<void(std::size_t count)> size;
  // Makes places for records [0, count), called on the caller's thread before any of them is
  // read (a wave's records are read on several threads, each into its own place): a reader
  // that reserved `size` grows without moving what it holds, and makes them as the text it
  // gives back shrinks, not all before the first record.
  std::function<void(std::size_t count)> grow;
  std::function<void(std::size_t index, const nlohmann::json& rec, const std::string& at,
                     Span span)>
      record;
  // The same reading of a record read as a flat tree, for a record with no finding. Without
  // it, every record goes the full way. An Error it throws sends the record the full way
  // (`record` on nlohmann's tree), so that the finding is worded as before.
  std::function<void(std::size_t index, const json_detail::FlatValue& rec, const std::string& at,
                     Span span)>
      record_flat;
  // Every record's id and index, once the list was read through (the pass's duplicate-id
  // table: a loader's index of its records, not built a second time). Not called for trusted
  // text; a file with an error is refused whatever it holds.
  std::function<void(std::unordered_map<std::string, std::size_t>&& ids)> ids;
};

struct PassOptions {
  const DocKind* expected = nullptr;  // null: recognise the kind by the top-level list
  bool trusted = false;  // the embedded data, checked in CI: skip schema and semantic checks
  bool overlay = false;  // --cloud-add: "defaults" and "reviewed" may be absent
  bool errors_only = false;
  // Called with [begin, end) byte ranges of the text given to check_document (records
  // already read, nothing found in them) that the pass never reads again: a loader that holds
  // the text only to read it may give that memory back (a 100,000-card catalog's 148 MB).
  std::function<void(std::size_t begin, std::size_t end)> release;
  // The released bytes read back as they were (a mapped file): the pass need not count where
  // the kept text starts, it places a later finding from the whole text.
  bool release_rereads = false;
};

// Syntax, then the document's outline and each record in turn: schema, semantic checks,
// duplicate ids, then the sink for a record with no error. Findings come back located
// (file:line:col) and in source order. `text` may be megabytes: no record's JSON tree
// outlives its turn.
ValidationReport check_document(std::string_view text, const std::string& file,
                                const ValidateOptions& o, const PassOptions& pass,
                                const DocumentSink* sink);

// Error(data) "file:line:col: message" for the report's first error, with how many more
// there are; nothing when it has none.
void throw_first_error(const ValidationReport& report, const std::string& file);

// The date prices are aged against: options.as_of, or the document's "reviewed" date.
std::string effective_as_of(const nlohmann::json& outline, const ValidateOptions& options);

// Per-kind checks (validate_gpus.cpp, validate_cloud.cpp, validate_models.cpp).
// check_gpu_record and check_offer_record read either tree (instantiated for nlohmann's and
// the flat tree in their files).
template <typename J>
void check_gpu_record(const J& g, const std::string& ptr, const ValidateOptions& o, Findings& f);
void check_cloud_top(const nlohmann::json& outline, const ValidateOptions& o, Findings& f);
template <typename J>
void check_offer_record(const J& offer, const std::string& ptr, const ValidateOptions& o,
                        Findings& f);
void check_platform_top(const nlohmann::json& outline, const ValidateOptions& o, Findings& f);
void check_platform_record(const nlohmann::json& rec, const std::string& ptr,
                           const ValidateOptions& o, Findings& f);
void check_model_record(const nlohmann::json& m, const std::string& ptr, const ValidateOptions& o,
                        Findings& f);

}  // namespace gpusel::detail
