// `catalog list` and `catalog validate`.
#include <algorithm>
#include <cstring>

#include "gpusel/answer/answers.hpp"
#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_source.hpp"
#include "gpusel/rank/ranker.hpp"

namespace gpusel {

const Price* latest_price(const Gpu& gpu) {
  if (gpu.prices.empty()) return nullptr;
  return &*std::max_element(gpu.prices.begin(), gpu.prices.end(),
                            [](const Price& a, const Price& b) { return a.as_of < b.as_of; });
}

CatalogListAnswer list_gpus(const Catalog& catalog, const GpuFilter& f) {
  // A vendor or segment no card can have is a usage error, as in recommend, not an empty list.
  Filters asked;
  if (!f.vendor.empty()) asked.vendors.push_back(f.vendor);
  if (!f.segment.empty()) asked.segments.push_back(f.segment);
  check_filters(catalog, asked);
  CatalogListAnswer a;
  a.total = catalog.gpus.size();
  for (const auto& g : catalog.gpus)
    if ((f.vendor.empty() || to_lower(f.vendor) == g.vendor) &&
        (f.segment.empty() || to_lower(f.segment) == g.segment) && g.vram_gb >= f.min_vram_gb)
      a.gpus.push_back(&g);
  return a;
}

namespace {

// Where a rule's text is: "/rules/<i>/effects/<key>" for "rule-id.key".
std::string text_pointer(const nlohmann::json& doc, const std::string& id_key) {
  const std::size_t dot = id_key.rfind('.');
  const std::string id = id_key.substr(0, dot), key = id_key.substr(dot + 1);
  const auto& rules = doc.at("rules");
  for (std::size_t i = 0; i < rules.size(); ++i)
    if (rules[i].value("id", "") == id) return "/rules/" + std::to_string(i) + "/effects/" + key;
  return "";
}

// A rules file: loaded as --rules loads it (an error names what is wrong), then every text
// without its zh-CN translation is a warning (the English text is shown instead).
ValidationReport validate_rules(const std::string& text, const std::string& name) {
  ValidationReport r;
  try {
    const LocatedJson src = parse_located(text, name);
    try {
      for (const auto& t : untranslated_texts(parse_rules(src.doc, name))) {
        const std::string ptr = text_pointer(src.doc, t);
        r.diagnostics.push_back({Severity::warning, name, src.at(ptr), ptr, "translation",
                                 t + " has no zh-CN text (effects.zh-CN)"});
      }
    } catch (const Error& e) {
      std::string msg = e.what();  // "<name>: rules[1].when: ...": the file is named already
      if (msg.rfind(name + ": ", 0) == 0) msg.erase(0, name.size() + 2);
      r.diagnostics.push_back({Severity::error, name, src.at(""), "", "rules", msg});
    }
  } catch (const Error& e) {  // a syntax error, positioned in its message
    r.diagnostics.push_back({Severity::error, name, {}, "", "syntax", e.what()});
  }
  return r;
}

// Whether `text` holds `word`. A quoted word's first byte, '"', comes every few bytes in
// JSON, and string_view::find stops at each: two such searches of a 146 MB catalog were a
// sixth of `catalog validate`'s time. glibc's memmem compares pairs of bytes by hash.
bool contains(std::string_view text, std::string_view word) {
  return ::memmem(text.data(), text.size(), word.data(), word.size()) != nullptr;
}

// From the root's keys alone: a tree of a 100 MB catalog only to look for "rules" cost more
// than validating it. A text the scanner refuses is read as before, by nlohmann (a rules file
// with a duplicate key still goes to validate_rules, which reports it).
bool is_rules_file(std::string_view text) {
  // A key reads "rules" only if the text spells it so or writes a letter as a \u escape:
  // without either, no scan is needed to know (it cost as much as the check of a catalog).
  if (!contains(text, "\"rules\"") && text.find("\\u") == std::string_view::npos) return false;
  if (const auto keys = top_level_keys(text))
    return std::find(keys->begin(), keys->end(), "rules") != keys->end();
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  return doc.is_object() && doc.contains("rules");
}

}  // namespace

ValidateAnswer validate_data(std::vector<DataFile> files,
                             const std::function<const Catalog&()>& catalog,
                             const std::string& as_of, bool strict) {
  if (files.empty())  // every embedded data file that has a validator
    for (const char* p : {"data/gpus.json", "data/cloud.json", "data/models.json",
                          "data/platforms.json", "data/rules.json"})
      for (const auto& e : embedded_files())
        if (e.path == p)
          files.push_back({std::string(p), std::make_shared<const InputText>(std::string(e.text))});
  ValidateAnswer a;
  a.as_of = as_of.empty() ? today_iso() : as_of;
  ValidateOptions opt{a.as_of, nullptr};
  for (const auto& in : files) {
    const std::string_view text = in.text->view();
    if (contains(text, "\"offers\"")) opt.gpus = &catalog();
    const ValidationReport r = is_rules_file(text) ? validate_rules(std::string(text), in.name)
                                                   : validate_document(text, in.name, opt);
    a.files.push_back(
        {in.name, r.count(Severity::error), r.count(Severity::warning), r.count(Severity::note)});
    a.report.diagnostics.insert(a.report.diagnostics.end(), r.diagnostics.begin(),
                                r.diagnostics.end());
  }
  a.passed = a.report.passed(strict);
  return a;
}

}  // namespace gpusel
