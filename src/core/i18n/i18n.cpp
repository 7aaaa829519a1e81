#include "gpusel/i18n/i18n.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/json/embedded.hpp"
#include "gpusel/json/json_schema.hpp"

namespace gpusel {
namespace {

Lang session_lang = Lang::en;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

// A locale name's language and territory ("zh_CN.UTF-8@euro" -> "zh-cn"): the codeset and
// modifier say nothing about the language.
std::string locale_language(std::string_view locale) {
  const std::size_t end = locale.find_first_of(".@");
  return lower(locale.substr(0, end));
}

std::map<std::string, std::string> load_table(Lang lang) {
  const std::string path = "data/i18n/" + lang_tag(lang) + ".json";
  const auto doc = nlohmann::json::parse(embedded_text(path));
  static const auto schema = nlohmann::json::parse(embedded_text("data/schema/i18n.schema.json"));
  require_schema(schema, doc, "embedded " + path);
  std::map<std::string, std::string> table;
  for (const auto& [msgid, text] : doc.at("messages").items())
    table.emplace(msgid, text.get<std::string>());
  return table;
}

}  // namespace

std::optional<Lang> parse_lang(std::string_view name) {
  const std::string n = lower(name);
  if (n == "en" || n == "en-us" || n == "en-gb" || n == "c" || n == "posix") return Lang::en;
  if (n == "zh" || n == "zh-cn" || n == "zh-hans" || n == "zh-sg" || n == "zh-hans-cn")
    return Lang::zh_cn;
  return std::nullopt;
}

std::string lang_tag(Lang lang) { return lang == Lang::zh_cn ? "zh-CN" : "en"; }

Lang lang_from_locale(std::string_view lc_all, std::string_view lc_messages,
                      std::string_view lang) {
  for (std::string_view v : {lc_all, lc_messages, lang}) {
    if (v.empty()) continue;
    const std::string l = locale_language(v);
    // Only Simplified Chinese is translated; Traditional locales keep English rather than
    // get a script their readers did not ask for (--lang zh-CN forces it).
    return l == "zh" || l == "zh-cn" || l == "zh-sg" || l.rfind("zh-hans", 0) == 0 ? Lang::zh_cn
                                                                                   : Lang::en;
  }
  return Lang::en;
}

void set_language(Lang lang) { session_lang = lang; }

Lang language() { return session_lang; }

const std::map<std::string, std::string>& message_table(Lang lang) {
  static const std::map<std::string, std::string> none;
  if (lang == Lang::en) return none;
  static const std::map<std::string, std::string> zh = load_table(Lang::zh_cn);
  return zh;
}

std::string did_you_mean_tr(std::string_view word, const std::vector<std::string>& candidates) {
  if (session_lang == Lang::en) return did_you_mean(word, candidates);
  std::string list;
  for (const auto& c : nearest(word, candidates)) list += (list.empty() ? "" : ", ") + c;
  return list.empty() ? "" : trf(" (did you mean {}?)", list);
}

std::string tr(std::string_view msgid) {
  if (session_lang == Lang::en) return std::string(msgid);
  // A table that fails its schema (a build from a broken data/i18n file; the unit tests read
  // it directly and fail) must not take the error message that reports a problem with it.
  const std::map<std::string, std::string>* loaded = nullptr;
  try {
    loaded = &message_table(session_lang);
  } catch (const std::exception&) {
    return std::string(msgid);
  }
  const auto& table = *loaded;
  const auto it = table.find(std::string(msgid));
  return it == table.end() ? std::string(msgid) : it->second;
}

}  // namespace gpusel
