#pragma once
// The interface language: one message table, gettext style. Code writes the English text
// and looks it up with tr("...") (or trf("... {} ...", args) for a format string); in
// Simplified Chinese the lookup returns data/i18n/zh-CN.json's text for that English msgid,
// and the msgid itself when the table has none. A text that is built elsewhere and
// translated later (a table header) is marked N_("...") so that the source scan
// (tests/unit/i18n) finds every msgid and checks the table has it.
#include <fmt/format.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpusel {

enum class Lang { en, zh_cn };

// "en" or "zh-CN" (also zh_CN, zh-Hans, zh; case-insensitive); nullopt for anything else.
std::optional<Lang> parse_lang(std::string_view name);
std::string lang_tag(Lang lang);  // "en", "zh-CN"

// The language a POSIX locale asks for messages in: the first non-empty of LC_ALL,
// LC_MESSAGES and LANG decides; zh_CN, zh_SG and zh_Hans give Simplified Chinese, anything
// else (C, en_US, ja_JP, Traditional zh_TW/zh_HK) English.
Lang lang_from_locale(std::string_view lc_all, std::string_view lc_messages, std::string_view lang);

// The session's language, set once by the CLI before any output (English by default).
void set_language(Lang lang);
Lang language();

// The translation of `msgid` in the session's language; `msgid` itself in English or when
// the table lacks it.
std::string tr(std::string_view msgid);
// tr, then fmt formatting. A translation may reorder its arguments with {0}, {1}.
template <class... Args>
std::string trf(std::string_view msgid, Args&&... args) {
  return fmt::format(fmt::runtime(tr(msgid)), std::forward<Args>(args)...);
}
// Marks a msgid translated later (by render_table, say): the text itself, unchanged.
constexpr const char* N_(const char* msgid) { return msgid; }

// " (did you mean a, b?)" (base's did_you_mean) in the session's language.
std::string did_you_mean_tr(std::string_view word, const std::vector<std::string>& candidates);

// The table of a language: msgid -> text (the embedded data/i18n/<tag>.json). Throws
// Error(data) when the file does not match data/schema/i18n.schema.json.
const std::map<std::string, std::string>& message_table(Lang lang);

}  // namespace gpusel
