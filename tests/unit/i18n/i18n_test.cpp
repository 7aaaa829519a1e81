// The interface language: choosing it, looking texts up, and the completeness checks that
// fail when code or data gains a text without its Simplified Chinese translation.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "gpusel/i18n/i18n.hpp"
#include "gpusel/rank/rules.hpp"

using namespace gpusel;

namespace {

struct LangGuard {
  explicit LangGuard(Lang l) { set_language(l); }
  ~LangGuard() { set_language(Lang::en); }
};

// Every msgid the sources pass to tr(), trf() or N_() as string literals (adjacent literals
// joined, as the compiler joins them), with the file it first appears in.
std::map<std::string, std::string> source_msgids() {
  const std::regex call(R"re(\b(?:tr|trf|N_)\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+))re");
  const std::regex literal(R"re("((?:[^"\\]|\\.)*)")re");
  std::map<std::string, std::string> ids;
  namespace fs = std::filesystem;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(GPUSEL_SOURCE_DIR) / "src")) {
    const auto ext = e.path().extension();
    if (ext != ".cpp" && ext != ".hpp") continue;
    std::ifstream in(e.path());
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string text = buf.str();
    for (std::sregex_iterator m(text.begin(), text.end(), call), end; m != end; ++m) {
      std::string id;
      const std::string lits = (*m)[1];
      for (std::sregex_iterator l(lits.begin(), lits.end(), literal); l != end; ++l) {
        // The escapes msgids use: \n, \" and \\ (anything else would need its own case).
        const std::string raw = (*l)[1];
        for (std::size_t i = 0; i < raw.size(); ++i) {
          if (raw[i] != '\\' || i + 1 == raw.size()) {
            id += raw[i];
            continue;
          }
          const char c = raw[++i];
          id += c == 'n' ? '\n' : c;
        }
      }
      ids.emplace(id, e.path().filename().string());
    }
  }
  return ids;
}

// The argument indices a format string reads: {} counts up, {2:g} names one. fmt refuses a
// string that mixes the two: -1 marks that.
std::set<int> arguments(const std::string& f) {
  std::set<int> out;
  int next = 0;
  bool numbered = false;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '{' && i + 1 < f.size() && f[i + 1] == '{') {
      ++i;
      continue;
    }
    if (f[i] != '{') continue;
    const std::size_t end = f.find_first_of(":}", i);
    const std::string index = f.substr(i + 1, end - i - 1);
    out.insert(index.empty() ? next++ : std::stoi(index));
    numbered |= !index.empty();
    i = f.find('}', i);
  }
  if (numbered && next > 0) out.insert(-1);
  return out;
}

}  // namespace

TEST_CASE("language names and locales") {
  CHECK(parse_lang("zh-CN") == Lang::zh_cn);
  CHECK(parse_lang("zh_cn") == Lang::zh_cn);
  CHECK(parse_lang("ZH") == Lang::zh_cn);
  CHECK(parse_lang("en") == Lang::en);
  CHECK_FALSE(parse_lang("fr").has_value());
  CHECK_FALSE(parse_lang("zh-TW").has_value());
  CHECK(lang_tag(Lang::zh_cn) == "zh-CN");

  CHECK(lang_from_locale("", "", "zh_CN.UTF-8") == Lang::zh_cn);
  CHECK(lang_from_locale("", "", "zh_SG.GB2312") == Lang::zh_cn);
  CHECK(lang_from_locale("", "", "en_US.UTF-8") == Lang::en);
  CHECK(lang_from_locale("", "", "") == Lang::en);
  CHECK(lang_from_locale("", "", "zh_TW.UTF-8") == Lang::en);  // Traditional: not translated
  CHECK(lang_from_locale("", "", "ja_JP.UTF-8") == Lang::en);
  // POSIX precedence: LC_ALL, then LC_MESSAGES, then LANG; an empty variable is unset.
  CHECK(lang_from_locale("C", "zh_CN.UTF-8", "zh_CN.UTF-8") == Lang::en);
  CHECK(lang_from_locale("", "en_US.UTF-8", "zh_CN.UTF-8") == Lang::en);
  CHECK(lang_from_locale("", "zh_CN.UTF-8", "C.UTF-8") == Lang::zh_cn);
  CHECK(lang_from_locale("zh_CN.UTF-8", "C", "C") == Lang::zh_cn);
}

TEST_CASE("tr looks a msgid up in the session's language") {
  CHECK(tr("Warnings:") == "Warnings:");  // English by default
  {
    LangGuard zh(Lang::zh_cn);
    CHECK(tr("Warnings:") == "警告：");
    CHECK(tr("no such msgid, shown as written") == "no such msgid, shown as written");
    CHECK(trf("{} GiB short", "1.50") == "差 1.50 GiB");
    // A translation may reorder its arguments.
    CHECK(trf("({} hidden to fit {} columns; --wide shows all)", "eco", 80) ==
          "（为适应 80 列宽隐藏了 eco；--wide 显示全部）");
  }
  CHECK(tr("Warnings:") == "Warnings:");
  CHECK(std::string(N_("kept as written")) == "kept as written");
}

TEST_CASE("every msgid in the sources has a zh-CN translation with the same arguments") {
  const auto ids = source_msgids();
  const auto& table = message_table(Lang::zh_cn);
  REQUIRE(ids.size() > 100);  // the scan found the code's texts
  CHECK(ids.count("Warnings:") == 1);
  CHECK(ids.count("Considered {} configurations: {} pass; rejected {} too small, {} over budget, "
                  "{} without a price, {} by rules, {} by filters.") == 1);  // joined literals
  for (const auto& [id, file] : ids) {
    INFO(file << ": " << id);
    const auto it = table.find(id);
    REQUIRE(it != table.end());
    CHECK(arguments(it->second) == arguments(id));
  }
}

TEST_CASE("the zh-CN table holds only msgids the code uses") {
  const auto ids = source_msgids();
  for (const auto& [id, text] : message_table(Lang::zh_cn)) {
    INFO(id);
    CHECK(ids.count(id) == 1);
  }
}

TEST_CASE("every text of the shipped rules has a zh-CN translation") {
  const RuleSet rules = load_rules();
  REQUIRE(rules.rules.size() > 20);
  CHECK(untranslated_texts(rules).empty());
}

TEST_CASE("rule texts follow the session's language and keep their placeholders") {
  const auto doc = nlohmann::json::parse(R"({"rules": [{"id": "r", "fact": "f",
    "when": ["gpu.vram_gb", "<", 24],
    "effects": {"warning": "{gpu.vram_gb} GB is small", "note": "only English",
                "zh-CN": {"warning": "{gpu.vram_gb} GB 显存偏小"}}}]})");
  const RuleSet set = parse_rules(doc, "test");
  CHECK(untranslated_texts(set) == std::vector<std::string>{"r.note"});
  Facts facts;
  facts["gpu.vram_gb"] = 16.0;
  CHECK(apply_rules(set, facts).warnings.at(0).text == "16 GB is small");
  LangGuard zh(Lang::zh_cn);
  const RuleOutcome out = apply_rules(set, facts);
  CHECK(out.warnings.at(0).text == "16 GB 显存偏小");
  CHECK(out.notes.at(0).text == "only English");  // no translation: the English text
}

TEST_CASE("a rule's zh-CN texts are checked as its English ones") {
  auto rule = [](const std::string& effects) {
    return nlohmann::json::parse(R"({"rules": [{"id": "r", "fact": "f",
      "when": ["gpu.vram_gb", "<", 24], "effects": )" +
                                 effects + "}]}");
  };
  CHECK_THROWS_WITH(
      parse_rules(rule(R"({"warning": "w", "zh-CN": {"warning": "{gpu.vrm_gb}"}})"), "t"),
      Catch::Contains("unknown fact '{gpu.vrm_gb}'"));
  CHECK_THROWS_WITH(parse_rules(rule(R"({"warning": "w", "zh-CN": {"note": "提示"}})"), "t"),
                    Catch::Contains("translates a text the rule does not have"));
  CHECK_THROWS_WITH(parse_rules(rule(R"({"zh-CN": {"warning": "警告"}})"), "t"),
                    Catch::Contains("needs at least one of"));
}
