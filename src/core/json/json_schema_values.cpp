// The values a schema check reads and the way its messages show them (json_schema.cpp).
#include <algorithm>
#include <cmath>

#include "gpusel/base/text.hpp"
#include "json_schema_internal.hpp"

namespace gpusel::schema_detail {

// ---- Rendering values in messages --------------------------------------------------------

std::string brief(const json& v) {
  if (v.is_string()) return "'" + quote_input(v.get_ref<const std::string&>(), 40) + "'";
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  return v.dump();
}

// "string '24'", "number 2.5", "null": what a value is, for type mismatches.
std::string what_is(const json& v) {
  if (v.is_null() || v.is_object() || v.is_array()) return v.is_null() ? "null" : brief(v);
  return std::string(v.type_name()) + " " + brief(v);
}

std::string with_article(const std::string& type) {
  if (type == "null") return "null";
  bool vowel = type[0] == 'a' || type[0] == 'i' || type[0] == 'o';
  return (vowel ? "an " : "a ") + type;
}

std::string plain(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// ---- Value predicates --------------------------------------------------------------------

// The type bits `v` satisfies: a number with no fraction is also an integer.
unsigned types_of(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return t_null;
    case json::value_t::boolean:
      return t_boolean;
    case json::value_t::object:
      return t_object;
    case json::value_t::array:
      return t_array;
    case json::value_t::string:
      return t_string;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return t_number | t_integer;
    case json::value_t::number_float: {
      const double d = v.get<double>();
      return std::isfinite(d) && std::trunc(d) == d ? t_number | t_integer : t_number;
    }
    default:
      return 0;
  }
}

bool is_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (s[i] < '0' || s[i] > '9') return false;
  auto number = [&s](std::size_t at, std::size_t n) {  // digits checked above
    int x = 0;
    for (std::size_t i = at; i < at + n; ++i) x = x * 10 + (s[i] - '0');
    return x;
  };
  const int y = number(0, 4), m = number(5, 2), d = number(8, 2);
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  const int days[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m >= 1 && m <= 12 && d >= 1 && d <= days[m - 1];
}

// scheme://rest: a letter, then letters, digits, '+', '.', '-'; then at least one character
// after "://", none of them whitespace or control characters.
bool is_uri(std::string_view s) {
  const std::size_t sep = s.find("://");
  if (sep == std::string_view::npos || sep == 0 || sep + 3 >= s.size()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!alpha(s[0])) return false;
  for (std::size_t i = 1; i < sep; ++i)
    if (!alpha(s[i]) && !(s[i] >= '0' && s[i] <= '9') && s[i] != '+' && s[i] != '.' && s[i] != '-')
      return false;
  return std::none_of(s.begin() + static_cast<std::ptrdiff_t>(sep) + 3, s.end(),
                      [](char c) { return (c >= 0 && c <= 0x20) || c == 0x7F; });
}

// Membership in "enum": a string is compared as a string, without json's generic comparison
// (which says the same: values of different types are never equal).
bool in_enum(const json& options, const json& v) {
  if (!v.is_string()) return std::find(options.begin(), options.end(), v) != options.end();
  const auto& str = v.get_ref<const std::string&>();
  return std::any_of(options.begin(), options.end(), [&str](const json& o) {
    return o.is_string() && o.get_ref<const std::string&>() == str;
  });
}

std::size_t code_points(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

}  // namespace gpusel::schema_detail
