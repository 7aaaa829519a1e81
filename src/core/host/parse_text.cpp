#include <cctype>
#include <charconv>

#include "host_internal.hpp"

namespace gpusel::host_detail {

std::string trimmed(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = s.find(sep, start);
    out.emplace_back(s.substr(start, end == std::string_view::npos ? s.npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::vector<std::string> lines(std::string_view text) {
  std::vector<std::string> out = split(text, '\n');
  for (auto& l : out)
    if (!l.empty() && l.back() == '\r') l.pop_back();
  return out;
}

std::optional<double> number(std::string_view s) {
  const std::string t = trimmed(s);
  if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])))) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
  return v;
}

std::optional<double> size_bytes(std::string_view s) {
  const std::string t = trimmed(s);
  std::size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) ++i;
  const auto v = number(t.substr(0, i));
  if (!v) return std::nullopt;
  std::string unit;
  for (char c : t.substr(i))
    if (!std::isspace(static_cast<unsigned char>(c))) unit += static_cast<char>(std::toupper(c));
  if (unit == "GB" || unit == "GIB") return *v * 1024 * kMiB;
  if (unit == "MB" || unit == "MIB") return *v * kMiB;
  if (unit == "TB" || unit == "TIB") return *v * 1024 * 1024 * kMiB;
  return std::nullopt;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace gpusel::host_detail
