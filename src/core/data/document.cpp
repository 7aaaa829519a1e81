// One pass over a data document, shared by the loaders and `catalog validate`: syntax, the
// document without its records (the outline), then each record on its own: schema, semantic
// checks, duplicate ids and the loader's own reading. A record's JSON tree lives only for
// its turn, so a 100,000-card catalog costs its text and its typed records, not a tree.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "document_locate.hpp"
#include "document_waves.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/base/threads.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"
#include "json/json_build.hpp"
#include "json/json_fields.hpp"
#include "json/json_scan.hpp"
#include "validate_internal.hpp"

namespace gpusel::detail {
namespace {

using nlohmann::json;

// Records a wave reads across the threads; a list shorter than one wave is read on one.
constexpr std::size_t kWave = 4096;

class Pass {
 public:
  Pass(std::string_view text, std::size_t bom, const ValidateOptions& o, const PassOptions& p,
       const DocumentSink* sink, Findings& f)
      : text_(text), bom_(bom), opt_(o), pass_(p), sink_(sink), f_(f) {}

  // Returns the list read record by record (null when there is none). `skimmed`: the outline
  // is skim_outline's, the records' syntax not checked yet: each record's flat tree is built
  // strictly first, and a syntax error stops the pass (syntax()); a document the skim cannot
  // serve (no list read, or a kind without the flat reading) stops it too (refused()).
  const json_detail::Outline::List* run(const json_detail::Outline& outline, bool skimmed = false) {
    const auto* list = pick_list(outline);
    if (skimmed && (!list || !kind_->check_record_flat)) return refused_ = true, nullptr;
    if (!list) return nullptr;
    if (skimmed) prefix_ = std::string(text_.substr(0, list->begin + 1));
    std::string skeleton(text_.substr(0, list->begin));
    skeleton += "[]";
    skeleton += text_.substr(list->end);
    try {
      const json top = json_detail::build(skeleton, f_.file());
      top_level(top, list->items.size());
      ids_.reserve(list->items.size());  // one table for 100,000 ids, not a rehash at each doubling
      if (skimmed && list->items.size() >= kWave && worker_threads() > 1)
        return read_waves(*list), hand_over_ids(), list;
      for (std::size_t i = 0; i < list->items.size(); ++i) {
        if (i == placed_) places(std::min(list->items.size(), i + kWave));  // a wave ahead
        const auto [b, e] = list->items[i];
        const std::string_view rec_text = text_.substr(b, e - b);
        const bool built = skimmed && flat_.build_checked(rec_text, 2);
        if (skimmed && !built && syntax_error(*list, i)) return list;
        if (!fast_record(i, rec_text, Span{b + bom_, e + bom_}, skimmed, built))
          full_record(i, rec_text, Span{b + bom_, e + bom_});
        release_before(e);
      }
      hand_over_ids();
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
  const std::optional<Diagnostic>& syntax() const { return syntax_; }
  bool refused() const { return refused_; }

  // Trusted text (the embedded data): one tree of the whole document, built with its
  // outline, no scan; its records are read from that tree.
  const json_detail::Outline::List* run_trusted(const json& doc,
                                                const json_detail::Outline& outline) {
    const auto* list = pick_list(outline);
    if (!list) return nullptr;
    const json& records = doc.at(list->key);
    top_level(doc, list->items.size());
    places(list->items.size());
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
  std::size_t placed_ = 0;      // records the sink has places for
  std::size_t released_ = 0;    // given back so far, when the text reads back (release_rereads)
  json_detail::FlatTree flat_;  // the fast path's record, reused
  std::string prefix_;          // a skimmed document's text up to its list's '['
  std::optional<Diagnostic> syntax_;
  bool refused_ = false;

  // Record i failed the strict build: the scanner, run from the end of the record before it
  // (after prefix_ and a stand-in element, so its state is the one a scan of the whole text
  // has there: the root's keys so far, the depth, a comma before), words the first syntax
  // error as that scan would. False when it finds none (the record is read the full way).
  bool syntax_error(const json_detail::Outline::List& list, std::size_t i) {
    const std::size_t from = i == 0 ? list.items[0].first : list.items[i - 1].second;
    const std::string lead = i == 0 ? prefix_ : prefix_ + "0";
    json_detail::ScanError e;
    if (json_detail::scan_after(lead, text_.substr(from), e)) return false;
    const std::size_t at = from + e.offset;
    const SourcePos r = json_detail::position_of(text_.substr(kept_.offset), at - kept_.offset);
    const SourcePos pos{kept_.line + r.line - 1,
                        r.line == 1 ? kept_.column + r.column - 1 : r.column, at};
    syntax_ = Diagnostic{Severity::error, f_.file(), pos, "", "syntax", e.reason};
    return true;
  }

  // A long skimmed list, a wave of records at a time: each record read ahead on the threads
  // (prepare), then taken in order here (finish) as the loop in run() takes it.
  void read_waves(const json_detail::Outline::List& list) {
    if (opt_.gpus) opt_.gpus->find("");  // its id index built here, before threads read it
    const Schema& schema = schema_for(*kind_);
    std::vector<json_detail::FlatTree> trees(worker_threads());
    std::vector<Prepared> wave;
    const auto prepare = [&](std::size_t i, json_detail::FlatTree& t) {
      return prepare_record(schema, list, i, t);
    };
    // Wave k is prepared on the threads while this thread takes wave k - 1 in order (its
    // finishing, serial, no longer waits for a wave of its own): [done, b) is that wave.
    std::vector<Prepared> ready;
    std::size_t done = 0;
    bool stopped = false;
    const auto take_ready = [&] {
      for (std::size_t i = done; i < done + ready.size() && !stopped; ++i)
        stopped = finish(list, i, ready[i - done]);
    };
    for (std::size_t b = 0; b < list.items.size(); b += kWave) {
      const std::size_t e = std::min(list.items.size(), b + kWave);
      places(e);
      prepare_wave(b, e, prepare, trees, wave, take_ready);
      if (stopped) return;
      std::swap(ready, wave);
      done = b;
    }
    take_ready();
  }

  // fast_record's reading of record i, touching nothing shared: its findings go to a report
  // of its own, its id is checked for duplicates in order (finish).
  Prepared prepare_record(const Schema& schema, const json_detail::Outline::List& list,
                          std::size_t i, json_detail::FlatTree& tree) const {
    Prepared p;
    const auto [b, e] = list.items[i];
    if (!tree.build_checked(text_.substr(b, e - b), 2)) return p.state = Prepared::State::syntax, p;
    const json_detail::FlatValue rec = tree.root();
    if (!schema.accepts_item(rec, kind_->list)) return p;
    ValidationReport own;
    Findings f(f_.file(), own, f_.errors_only());
    f.unworded();  // its own count: every unknown GPU id would cost a pass over the catalog
    kind_->check_record_flat(rec, "/" + std::string(kind_->list) + "/" + std::to_string(i), opt_,
                             f);
    if (f.serious_since({})) return p;
    if (const auto id = id_of(rec)) p.id = std::string(*id);
    if (sink_ && sink_->record_flat && !read_flat(i, rec, Span{b + bom_, e + bom_})) return p;
    p.notes = std::move(own.diagnostics);
    p.state = Prepared::State::fast;
    return p;
  }

  // Record i's turn, read ahead as `p`: true when the pass stops at its syntax error.
  bool finish(const json_detail::Outline::List& list, std::size_t i, const Prepared& p) {
    const auto [b, e] = list.items[i];
    if (p.state == Prepared::State::syntax && syntax_error(list, i)) return true;
    if (p.state == Prepared::State::fast && !(p.id && ids_.count(*p.id))) {
      for (const Diagnostic& d : p.notes) f_.add(d.severity, d.pointer, d.check, d.message);
      unique_id(i, p.id ? std::optional<std::string_view>(*p.id) : std::nullopt,
                "/" + std::string(kind_->list) + "/" + std::to_string(i));
    } else {
      full_record(i, text_.substr(b, e - b), Span{b + bom_, e + bom_});
    }
    release_before(e);
    return false;
  }

  // The sink's places for records [0, upto) (DocumentSink::grow), made before they are read.
  void places(std::size_t upto) {
    if (sink_ && sink_->grow && upto > placed_) sink_->grow(upto), placed_ = upto;
  }

  void full_record(std::size_t i, std::string_view rec_text, Span span) {
    json rec = json_detail::build(rec_text, f_.file());
    record(i, rec, span);
    json_detail::dispose(rec);
  }

  // The fast path: a record read as a flat tree, kept when the schema finds nothing, the
  // semantic checks no error or warning (their notes are the same code's, kept) and the
  // sink reads it; false (and nothing kept) sends the record the full way, which words every
  // finding as before. Trusted text, and kinds or sinks without a flat reading, go the full way.
  // `checked`: the tree was built already (strictly), `built` whether it was.
  bool fast_record(std::size_t i, std::string_view rec_text, Span span, bool checked, bool built) {
    if (pass_.trusted || !kind_->check_record_flat ||
        (sink_ && sink_->record && !sink_->record_flat))
      return false;
    if (checked && !built) return false;
    try {
      if (!checked) flat_.build(rec_text, f_.file());
    } catch (const Error&) {  // never after a clean scan: the full way says what it says
      return false;
    }
    const json_detail::FlatValue rec = flat_.root();
    if (!schema_for(*kind_).accepts_item(rec, kind_->list)) return false;
    const std::string ptr = "/" + std::string(kind_->list) + "/" + std::to_string(i);
    const Findings::Mark mark = f_.mark();
    kind_->check_record_flat(rec, ptr, opt_, f_);
    if (f_.serious_since(mark)) {
      f_.rollback(mark);
      return false;
    }
    const auto id = id_of(rec);
    if ((id && ids_.count(std::string(*id))) ||  // a duplicate: worded the full way
        (sink_ && sink_->record_flat && !read_flat(i, rec, span))) {
      f_.rollback(mark);
      return false;
    }
    unique_id(i, id, ptr);
    return true;
  }

  // The sink's flat reading; false when it refused the record (an Error), before any effect.
  bool read_flat(std::size_t i, const json_detail::FlatValue& rec, Span span) const {
    try {
      sink_->record_flat(i, rec, record_label(kind_->list, i, rec), span);
      return true;
    } catch (const Error&) {
      return false;
    }
  }

  // Gives the records read so far back (PassOptions::release) while nothing has been found:
  // a later finding is placed from the kept text's start, whose position is counted here.
  void release_before(std::size_t upto) {
    constexpr std::size_t kStep = std::size_t{1} << 18;  // a system call per 256 KiB read
    if (pass_.release && pass_.release_rereads && upto - released_ >= kStep) {
      pass_.release(bom_ + released_, bom_ + upto);  // kept_ stays: the text reads back
      released_ = upto;
    }
    if (!pass_.release || pass_.release_rereads || !f_.none_recorded() ||
        upto - kept_.offset < kStep)
      return;
    const SourcePos r = json_detail::position_of(text_.substr(kept_.offset), upto - kept_.offset);
    const SourcePos next{kept_.line + r.line - 1,
                         r.line == 1 ? kept_.column + r.column - 1 : r.column, upto};
    pass_.release(bom_ + kept_.offset, bom_ + upto);
    kept_ = next;
  }

  const json_detail::Outline::List* pick_list(const json_detail::Outline& outline) {
    const json_detail::Outline::List* list = nullptr;
    std::tie(kind_, list) = detail::pick_list(outline, pass_.expected, f_);
    return list;
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
    unique_id(i, id_of(rec), ptr);
    if (f_.errors() == before && sink_ && sink_->record)
      guarded(ptr, [&] { sink_->record(i, rec, record_label(kind_->list, i, rec), span); });
  }

  void schema_issue(const SchemaIssue& issue) {
    if (issue.unknown_field)
      f_.warning(issue.pointer, "unknown-field", issue.message);
    else
      f_.error(issue.pointer, "schema", issue.message);
  }

  void unique_id(std::size_t i, std::optional<std::string_view> id, const std::string& ptr) {
    if (!id) return;
    auto [it, fresh] = ids_.try_emplace(std::string(*id), i);
    if (!fresh)
      f_.error(ptr + "/id", "unique-ids",
               "duplicate id '" + quote_input(it->first) + "' (first at index " +
                   std::to_string(it->second) + ")");
  }

  // The list read through (a syntax error stops it before): the sink may keep the id table.
  void hand_over_ids() {
    if (sink_ && sink_->ids && !syntax_) sink_->ids(std::move(ids_));
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

// A GPU or offers file is read without a scan of its records when the skim can outline it:
// each record's strict build checks its syntax, and an error is worded as the scan words it.
// False (`report` as it was) when the document must be scanned whole first.
// `bom`: the bytes of byte order mark taken off `text`.
bool read_skimmed(std::string_view text, std::size_t bom, const std::string& file,
                  const ValidateOptions& o, const PassOptions& pass, const DocumentSink* sink,
                  const json_detail::Outline& outline, ValidationReport& report) {
  json_detail::Outline skimmed;
  skimmed.candidates = outline.candidates;
  if ((pass.expected && !pass.expected->check_record_flat) ||
      !json_detail::skim_outline(text, skimmed))
    return false;
  Findings f(file, report, pass.errors_only);
  Pass p(text, bom, o, pass, sink, f);
  const auto* list = p.run(skimmed, true);
  if (p.syntax()) {
    report.diagnostics.assign(1, *p.syntax());
    return true;
  }
  if (!p.refused()) {
    locate(text, report, list, p.kept());
    return true;
  }
  report = ValidationReport{};  // not one it can serve: the whole text is scanned
  return false;
}

}  // namespace

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
  if (read_skimmed(text, bom, file, o, pass, sink, outline, report)) return report;
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

}  // namespace gpusel::detail
