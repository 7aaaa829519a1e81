#include "gpusel/json/json_source.hpp"

#include "json/json_build.hpp"
#include "json/json_scan.hpp"

namespace gpusel {
namespace {

using json_detail::position_of;

std::string located_message(const std::string& origin, SourcePos pos, const std::string& reason) {
  return origin + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + reason;
}

// Every prefix of `pointer` that ends before a '/', and the pointer itself.
void add_with_ancestors(const std::string& pointer, std::unordered_set<std::string>& out) {
  for (std::size_t slash = pointer.find('/'); slash != std::string::npos;
       slash = pointer.find('/', slash + 1))
    out.insert(pointer.substr(0, slash));
  out.insert(pointer);
}

}  // namespace

JsonSyntaxError::JsonSyntaxError(const std::string& origin, SourcePos p, std::string r)
    : Error(ExitCode::data, located_message(origin, p, r)), pos(p), reason(std::move(r)) {}

std::string pointer_escape(std::string_view token) {
  if (token.find_first_of("~/") == std::string_view::npos) return std::string(token);
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::vector<SourcePos> LocatedJson::at_all(const std::vector<std::string>& pointers) const {
  json_detail::PositionQuery q;
  for (const auto& p : pointers) add_with_ancestors(p, q.wanted);
  json_detail::ScanError ignored;
  json_detail::scan(text, &q, ignored);  // a text that parsed scans cleanly
  std::vector<SourcePos> out;
  out.reserve(pointers.size());
  for (const auto& pointer : pointers) {
    std::string p = pointer;
    while (true) {
      if (auto it = q.found.find(p); it != q.found.end()) {
        out.push_back(it->second);
        break;
      }
      if (p.empty()) {
        out.push_back({});
        break;
      }
      auto slash = p.rfind('/');
      p.erase(slash == std::string::npos ? 0 : slash);
    }
  }
  return out;
}

SourcePos LocatedJson::at(const std::string& pointer) const { return at_all({pointer}).front(); }

std::optional<std::vector<std::string>> top_level_keys(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  json_detail::ScanError error;
  json_detail::Outline outline;
  if (!json_detail::scan(text, nullptr, error, &outline)) return std::nullopt;
  return std::move(outline.keys);
}

LocatedJson parse_located(std::string_view text, const std::string& origin) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  json_detail::ScanError error;
  if (!json_detail::scan(text, nullptr, error))
    throw JsonSyntaxError(origin, position_of(text, error.offset), error.reason);
  LocatedJson out;
  out.text = text;
  out.doc = json_detail::build(text, origin);  // the scan has checked it: one more pass
  return out;
}

}  // namespace gpusel
