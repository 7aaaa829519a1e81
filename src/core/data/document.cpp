// One pass over a data document, shared by the loaders and `catalog validate`: syntax, the
// document without its records (the outline), then each record on its own: schema, semantic
// checks, duplicate ids and the loader's own reading. A record's JSON tree lives only for
// its turn, so a 100,000-card catalog costs its text and its typed records, not a tree.
#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <unordered_map>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "json/json_build.hpp"
#include "json/json_scan.hpp"
#include "validate_internal.hpp"

namespace gpusel::detail {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxPointerShown = 200;

const Schema& schema_for(const DocKind& kind) {
  static std::map<std::string, std::unique_ptr<Schema>> schemas;  // read once per process
  auto& s = schemas[kind.schema];
  if (!s) s = std::make_unique<Schema>(embedded_json(kind.schema));
  return *s;
}

const std::array<const DocKind*, 4>& all_kinds() {
  static const std::array<const DocKind*, 4> kinds = {&gpus_kind(), &offers_kind(), &models_kind(),
                                                      &platforms_kind()};
  return kinds;
}

void no_top(const json&, const ValidateOptions&, Findings&) {}

// "gpus[3] (rtx-4090)": a record as messages name it.
std::string record_name(const DocKind& kind, std::size_t i, const json& rec) {
  std::string s = std::string(kind.list) + "[" + std::to_string(i) + "]";
  if (rec.is_object())
    if (auto id = rec.find("id"); id != rec.end() && id->is_string())
      s += " (" + quote_input(id->get_ref<const std::string&>()) + ")";
  return s;
}

class Pass {
 public:
  Pass(std::string_view text, std::size_t bom, const ValidateOptions& o, const PassOptions& p,
       const DocumentSink* sink, Findings& f)
      : text_(text), bom_(bom), opt_(o), pass_(p), sink_(sink), f_(f) {}

  // Returns the list read record by record (null when there is none).
  const json_detail::Outline::List* run(const json_detail::Outline& outline) {
    const auto* list = pick_list(outline);
    if (!list) return nullptr;
    std::string skeleton(text_.substr(0, list->begin));
    skeleton += "[]";
    skeleton += text_.substr(list->end);
    try {
      const json top = json_detail::build(skeleton, f_.file());
      top_level(top, list->items.size());
      for (std::size_t i = 0; i < list->items.size(); ++i) {
        const auto [b, e] = list->items[i];
        json rec = json_detail::build(text_.substr(b, e - b), f_.file());
        record(i, rec, Span{b + bom_, e + bom_});
        json_detail::dispose(rec);
        release_before(e);
      }
    } catch (const Error& e) {
      // Only if the builder refuses what the scanner accepted: still a finding, never a crash.
      f_.error("", "syntax", e.what());
    } catch (const json::exception& e) {  // a check's nlohmann lookup: a finding, not "internal"
      f_.error("", "syntax", e.what());
    }
    return list;
  }

  // Where the text still held starts (line, column, offset): findings are placed from there.
  SourcePos kept() const { return kept_; }

  // Trusted text (the embedded data): one tree of the whole document, built with its
  // outline, no scan; its records are read from that tree.
  const json_detail::Outline::List* run_trusted(const json& doc,
                                                const json_detail::Outline& outline) {
    const auto* list = pick_list(outline);
    if (!list) return nullptr;
    const json& records = doc.at(list->key);
    top_level(doc, list->items.size());
    for (std::size_t i = 0; i < list->items.size(); ++i) {
      const auto [b, e] = list->items[i];
      record(i, records.at(i), Span{b + bom_, e + bom_});
    }
    return list;
  }

 private:
  std::string_view text_;
  std::size_t bom_;  // bytes of byte order mark before text_, for spans in the caller's text
  ValidateOptions opt_;
  const PassOptions& pass_;
  const DocumentSink* sink_;
  Findings& f_;
  const DocKind* kind_ = nullptr;
  std::unordered_map<std::string, std::size_t> ids_;
  SourcePos kept_{1, 1, 0};

  // Gives the records read so far back (PassOptions::release) while nothing has been found:
  // a later finding is placed from the kept text's start, whose position is counted here.
  void release_before(std::size_t upto) {
    constexpr std::size_t kStep = std::size_t{1} << 18;  // a system call per 256 KiB read
    if (!pass_.release || !f_.none_recorded() || upto - kept_.offset < kStep) return;
    const SourcePos r = json_detail::position_of(text_.substr(kept_.offset), upto - kept_.offset);
    const SourcePos next{kept_.line + r.line - 1,
                         r.line == 1 ? kept_.column + r.column - 1 : r.column, upto};
    pass_.release(bom_ + kept_.offset, bom_ + upto);
    kept_ = next;
  }

  // The expected kind, else the first of gpus, offers, models the document has.
  const json_detail::Outline::List* pick_list(const json_detail::Outline& outline) {
    const auto& keys = outline.keys;
    for (const DocKind* k : all_kinds()) {
      if (pass_.expected && pass_.expected != k) continue;
      if (std::find(keys.begin(), keys.end(), k->list) == keys.end()) continue;
      kind_ = k;
      for (const auto& l : outline.lists)
        if (l.key == k->list) return &l;
      break;  // the list is there but is not an array
    }
    if (pass_.expected && !kind_)
      f_.error("", "schema",
               std::string("not ") + pass_.expected->what + " (expected an object with a \"" +
                   pass_.expected->list + "\" list)");
    else if (!kind_)
      f_.error("", "schema",
               "not a gpusel data file (expected a \"gpus\", \"offers\", \"models\" or "
               "\"platforms\" list at the top level)");
    else
      f_.error("/" + std::string(kind_->list), "schema",
               std::string("\"") + kind_->list + "\" must be an array");
    return nullptr;
  }

  void top_level(const json& top, std::size_t count) {
    const std::size_t before = f_.errors();
    if (!pass_.trusted) {
      for (const auto& issue : schema_for(*kind_).check_outline(top, kind_->list, count)) {
        if (pass_.overlay && issue.pointer.empty() &&
            (issue.message == "missing required field 'defaults'" ||
             issue.message == "missing required field 'reviewed'" ||
             issue.message == "missing required field 'schema_version'"))
          continue;  // an overlay may carry offers only
        schema_issue(issue);
      }
      opt_.as_of = effective_as_of(top, opt_);
      kind_->check_top(top, opt_, f_);
    }
    if (f_.errors() == before && sink_ && sink_->top) guarded("", [&] { sink_->top(top); });
    if (sink_ && sink_->size) sink_->size(count);
  }

  void record(std::size_t i, const json& rec, Span span) {
    const std::string ptr = "/" + std::string(kind_->list) + "/" + std::to_string(i);
    const std::size_t before = f_.errors();
    if (!pass_.trusted) {
      for (const auto& issue : schema_for(*kind_).check_item(rec, kind_->list, i))
        schema_issue(issue);
      kind_->check_record(rec, ptr, opt_, f_);
    }
    unique_id(i, rec, ptr);
    if (f_.errors() == before && sink_ && sink_->record)
      guarded(ptr, [&] { sink_->record(i, rec, record_name(*kind_, i, rec), span); });
  }

  void schema_issue(const SchemaIssue& issue) {
    if (issue.unknown_field)
      f_.warning(issue.pointer, "unknown-field", issue.message);
    else
      f_.error(issue.pointer, "schema", issue.message);
  }

  void unique_id(std::size_t i, const json& rec, const std::string& ptr) {
    if (!rec.is_object()) return;
    auto id = rec.find("id");
    if (id == rec.end() || !id->is_string()) return;
    const auto& s = id->get_ref<const std::string&>();
    auto [it, fresh] = ids_.emplace(s, i);
    if (!fresh)
      f_.error(ptr + "/id", "unique-ids",
               "duplicate id '" + quote_input(s) + "' (first at index " +
                   std::to_string(it->second) + ")");
  }

  // A loader's own refusal becomes a finding, so validate reports it too.
  template <typename F>
  void guarded(const std::string& ptr, F&& read) {
    try {
      read();
    } catch (const Error& e) {
      f_.error(ptr, "load", e.what());
    }
  }
};

// The record a finding's pointer lies in ("/gpus/14/prices" -> 14), if it lies in one.
bool record_of(const std::string& pointer, const std::string& prefix, std::size_t records,
               std::size_t& index) {
  if (prefix.empty() || pointer.compare(0, prefix.size(), prefix) != 0) return false;
  std::size_t i = prefix.size(), n = 0;
  for (; i < pointer.size() && pointer[i] != '/'; ++i) {
    if (pointer[i] < '0' || pointer[i] > '9' || n > records) return false;
    n = n * 10 + static_cast<std::size_t>(pointer[i] - '0');
  }
  if (i == prefix.size() || n >= records) return false;
  index = n;
  return true;
}

// Positions of findings inside records are looked up in those records' text alone, placed by
// where each record starts: scanning the whole document with every finding's pointer cost
// more than checking it when thousands of records had a note.
// Counted from `kept` (where the text still held starts; PassOptions::release): every record
// with a finding starts there or later.
void locate_in_records(std::string_view text, const json_detail::Outline::List& list,
                       std::size_t prefix_size,
                       std::map<std::size_t, std::vector<std::size_t>>& by_record,
                       ValidationReport& report, const SourcePos& kept) {
  std::vector<std::size_t> starts;
  for (const auto& [index, _] : by_record) starts.push_back(list.items[index].first - kept.offset);
  auto bases = json_detail::positions_of(text.substr(kept.offset), starts);
  for (auto& p : bases)
    p = {kept.line + p.line - 1, p.line == 1 ? kept.column + p.column - 1 : p.column,
         kept.offset + p.offset};
  const std::size_t skip = prefix_size;  // "/gpus/"
  std::size_t k = 0;
  for (const auto& [index, found] : by_record) {
    const auto [b, e] = list.items[index];
    const SourcePos base = bases[k++];
    std::vector<std::string> pointers;
    for (std::size_t i : found) {
      const std::string& p = report.diagnostics[i].pointer;
      const std::size_t slash = p.find('/', skip);
      pointers.push_back(slash == std::string::npos ? "" : p.substr(slash));
    }
    LocatedJson src;
    src.text = text.substr(b, e - b);
    const auto positions = src.at_all(pointers);
    for (std::size_t j = 0; j < found.size(); ++j) {
      const SourcePos& r = positions[j];
      report.diagnostics[found[j]].pos = {base.line + r.line - 1,
                                          r.line == 1 ? base.column + r.column - 1 : r.column,
                                          b + r.offset};
    }
  }
}

void locate(std::string_view text, ValidationReport& report, const json_detail::Outline::List* list,
            const SourcePos& kept = {1, 1, 0}) {
  if (report.diagnostics.empty()) return;
  const std::string prefix = list ? "/" + pointer_escape(list->key) + "/" : "";
  std::map<std::size_t, std::vector<std::size_t>> by_record;
  std::vector<std::size_t> rest;
  for (std::size_t i = 0; i < report.diagnostics.size(); ++i) {
    std::size_t index = 0;
    if (list && record_of(report.diagnostics[i].pointer, prefix, list->items.size(), index))
      by_record[index].push_back(i);
    else
      rest.push_back(i);
  }
  if (list) locate_in_records(text, *list, prefix.size(), by_record, report, kept);
  std::vector<std::string> pointers;
  for (std::size_t i : rest) pointers.push_back(report.diagnostics[i].pointer);
  LocatedJson src;
  src.text = text;
  std::vector<SourcePos> positions;
  if (kept.offset > 0) {
    // Text given back: outside the records only a refusal of the whole document ("") can
    // have come since (the document's own findings stop the release): at its root value.
    const SourcePos root = json_detail::position_of(text, text.find_first_not_of(" \t\r\n"));
    positions.assign(rest.size(), root);
  } else if (!rest.empty()) {
    positions = src.at_all(pointers);
  }
  for (std::size_t j = 0; j < rest.size(); ++j) report.diagnostics[rest[j]].pos = positions[j];
  for (auto& d : report.diagnostics) {
    // Keys come from the file: cut long ones and show control characters as \xNN, so that
    // no report line can be flooded or carry a terminal or CI escape sequence.
    d.pointer = quote_input(d.pointer, kMaxPointerShown);
    d.message = quote_input(d.message, std::string::npos);
  }
  // Source order, so a reader can walk the file top to bottom.
  std::stable_sort(report.diagnostics.begin(), report.diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     return std::tie(a.pos.line, a.pos.column) < std::tie(b.pos.line, b.pos.column);
                   });
}

}  // namespace

void Findings::add(Severity s, const std::string& pointer, const std::string& check,
                   const std::string& message) {
  if (s == Severity::error) ++errors_;
  if (errors_only_ && s != Severity::error) return;
  report_.diagnostics.push_back({s, file_, {}, pointer, check, message});
}

ValidationReport check_document(std::string_view text, const std::string& file,
                                const ValidateOptions& o, const PassOptions& pass,
                                const DocumentSink* sink) {
  ValidationReport report;
  const std::size_t bom = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  text.remove_prefix(bom);
  json_detail::Outline outline;
  for (const DocKind* k : all_kinds())
    if (!pass.expected || pass.expected == k) outline.candidates.push_back(k->list);
  if (pass.trusted) {
    Findings f(file, report, pass.errors_only);
    const json_detail::Outline::List* list = nullptr;
    try {
      const json doc = json_detail::build(text, file, &outline);
      list = Pass(text, bom, o, pass, sink, f).run_trusted(doc, outline);
    } catch (const Error& e) {  // shipped data the tests would have refused
      f.error("", "syntax", e.what());
    } catch (const json::exception& e) {
      f.error("", "syntax", e.what());
    }
    locate(text, report, list);
    return report;
  }
  json_detail::ScanError error;
  if (!json_detail::scan(text, nullptr, error, &outline)) {
    const SourcePos pos = json_detail::position_of(text, error.offset);
    report.diagnostics.push_back({Severity::error, file, pos, "", "syntax", error.reason});
    return report;
  }
  Findings f(file, report, pass.errors_only);
  Pass p(text, bom, o, pass, sink, f);
  const auto* list = p.run(outline);
  locate(text, report, list, p.kept());
  return report;
}

void throw_first_error(const ValidationReport& report, const std::string& file) {
  const auto& ds = report.diagnostics;
  auto first = std::find_if(ds.begin(), ds.end(),
                            [](const Diagnostic& d) { return d.severity == Severity::error; });
  if (first == ds.end()) return;
  const int more = report.count(Severity::error) - 1;
  std::string msg = file + ":" + std::to_string(first->pos.line) + ":" +
                    std::to_string(first->pos.column) + ": " +
                    (first->pointer.empty() ? "" : first->pointer + ": ") + first->message;
  if (more > 0)
    msg += " (and " + std::to_string(more) + " more error(s): gpusel catalog validate " +
           quote_input(file, 200) + " lists them)";
  throw data_error(msg);
}

const DocKind& gpus_kind() {
  static const DocKind k{"gpus", "data/schema/gpus.schema.json", "a GPU catalog", no_top,
                         check_gpu_record};
  return k;
}

const DocKind& offers_kind() {
  static const DocKind k{"offers", "data/schema/cloud.schema.json", "a cloud offers file",
                         check_cloud_top, check_offer_record};
  return k;
}

const DocKind& models_kind() {
  static const DocKind k{"models", "data/schema/models.schema.json", "a models file", no_top,
                         check_model_record};
  return k;
}

const DocKind& platforms_kind() {
  static const DocKind k{"platforms", "data/schema/platforms.schema.json", "a platforms file",
                         check_platform_top, check_platform_record};
  return k;
}

}  // namespace gpusel::detail
