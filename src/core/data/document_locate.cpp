// Placing a document's findings: positions looked up once the pass is over, record by record.
#include "document_locate.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "gpusel/base/text.hpp"
#include "gpusel/json/json_source.hpp"

namespace gpusel::detail {
namespace {

constexpr std::size_t kMaxPointerShown = 200;

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

}  // namespace

void locate(std::string_view text, ValidationReport& report, const json_detail::Outline::List* list,
            const SourcePos& kept) {
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

}  // namespace gpusel::detail
