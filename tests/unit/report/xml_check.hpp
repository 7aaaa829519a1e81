#pragma once
// A small well-formedness check for the SVG and HTML gpusel writes (no XML library in the
// build): balanced, properly nested tags, quoted attributes, only known entities, no raw '<'
// or '&' in text. With `html`, void elements (meta, br...) and a doctype are allowed.
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace xml_check {

inline bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == ':' || c == '_';
}

// "" when `s` is well-formed, else what is wrong and where (byte offset).
inline std::string problem(std::string_view s, bool html = false) {
  static const std::set<std::string> voids{"meta", "br", "link", "img", "hr", "input"};
  std::vector<std::string> open;
  auto at = [](std::size_t i, const std::string& what) {
    return what + " at byte " + std::to_string(i);
  };
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '&') {
      const std::size_t semi = s.find(';', i);
      const std::string ent(s.substr(i, semi == s.npos ? 1 : semi - i + 1));
      static const std::set<std::string> known{"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
      if (!known.count(ent) && !(ent.size() > 3 && ent[1] == '#'))
        return at(i, "bad entity " + ent);
      i = semi + 1;
      continue;
    }
    if (s[i] != '<') {
      ++i;
      continue;
    }
    if (s.substr(i, 5) == "<?xml") {
      const std::size_t e = s.find("?>", i);
      if (e == s.npos || i != 0) return at(i, "bad XML declaration");
      i = e + 2;
      continue;
    }
    if (s.substr(i, 9) == "<!DOCTYPE") {
      if (!html) return at(i, "doctype in XML");
      i = s.find('>', i) + 1;
      continue;
    }
    const bool closing = i + 1 < s.size() && s[i + 1] == '/';
    std::size_t j = i + (closing ? 2 : 1);
    std::string name;
    while (j < s.size() && name_char(s[j])) name += s[j++];
    if (name.empty()) return at(i, "'<' not starting a tag");
    bool self_closed = false;
    // Attributes: name="value" pairs; values may not hold '<' or a raw '"'.
    while (j < s.size() && s[j] != '>') {
      if (s[j] == '/' && j + 1 < s.size() && s[j + 1] == '>') {
        self_closed = true;
        ++j;
        break;
      }
      if (std::isspace(static_cast<unsigned char>(s[j]))) {
        ++j;
        continue;
      }
      std::string attr;
      while (j < s.size() && name_char(s[j])) attr += s[j++];
      if (attr.empty() || j >= s.size() || s[j] != '=' || j + 1 >= s.size() || s[j + 1] != '"')
        return at(j, "attribute not name=\"value\" in <" + name + ">");
      const std::size_t end = s.find('"', j + 2);
      if (end == s.npos) return at(j, "unterminated attribute");
      const std::string_view value = s.substr(j + 2, end - j - 2);
      if (value.find('<') != value.npos) return at(j, "'<' in an attribute");
      j = end + 1;
    }
    if (j >= s.size()) return at(i, "unterminated tag");
    if (closing) {
      if (open.empty() || open.back() != name)
        return at(i,
                  "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">"));
      open.pop_back();
    } else if (!self_closed && !(html && voids.count(name))) {
      open.push_back(name);
      if (name == "style" || name == "script") {  // raw text up to its end tag
        const std::size_t e = s.find("</" + name + ">", j);
        if (e == s.npos) return at(i, "unterminated <" + name + ">");
        j = e - 1;
      }
    }
    i = j + 1;
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return "";
}

}  // namespace xml_check
