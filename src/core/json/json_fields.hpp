#pragma once
// Reading one field of a parsed data record, with messages that say which record and which
// field: shared by the catalog, cloud and model loaders. Not a public header.
//
// Each reads either tree: nlohmann's, or the flat tree of a record (json_flat.hpp), whose
// readings the same template makes.
//
// Every read is checked: a number read as an int must be a whole number within int's range
// (a JSON 1e10 or 1e300 is refused, never cast), a double must be finite, and a mistyped
// value is a data error naming the field, never a nlohmann exception.
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gpusel/base/error.hpp"
#include "gpusel/base/text.hpp"
#include "json/json_flat.hpp"

namespace gpusel::detail {

// "gpus[3] (rtx-4090)": a record as messages name it.
template <typename J>
std::string record_label(std::string_view array, std::size_t index, const J& rec) {
  std::string s = std::string(array) + "[" + std::to_string(index) + "]";
  if (rec.is_object())
    if (auto id = rec.find("id"); id != rec.end() && id->is_string())
      s += " (" + quote_input(json_detail::text_of(*id)) + ")";
  return s;
}

// "origin: gpus[3] (rtx-4090)": where a record sits, for messages a user can act on.
template <typename J>
std::string record_at(const std::string& origin, const char* array, std::size_t index,
                      const J& rec) {
  return origin + ": " + record_label(array, index, rec);
}

// A record's id, if it has one (a string).
template <typename J>
std::optional<std::string_view> id_of(const J& rec) {
  if (!rec.is_object()) return std::nullopt;
  auto id = rec.find("id");
  if (id == rec.end() || !id->is_string()) return std::nullopt;
  return std::string_view(json_detail::text_of(*id));
}

[[noreturn]] inline void wrong_type(const std::string& at, const char* key, const char* want) {
  throw data_error(at + ": field '" + key + "' has the wrong type (expected " + want + ")");
}

// `v` (the value of field `key`) as a T, checked as the header comment says.
template <typename T, typename J>
T as(const J& v, const char* key, const std::string& at) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) wrong_type(at, key, "true or false");
    return v.template get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    static_assert(std::is_signed_v<T>, "records hold signed counts");
    if (!v.is_number()) wrong_type(at, key, "a whole number");
    constexpr auto lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    // 2^digits is exact as a double, where hi (2^63 - 1 for long) is not.
    const double top = std::ldexp(1.0, std::numeric_limits<T>::digits);
    const double d = v.template get<double>();
    const bool whole = !v.is_number_float() || std::trunc(d) == d;
    const bool in_range =
        v.is_number_unsigned()  ? v.template get<std::uint64_t>() <= std::uint64_t(hi)
        : v.is_number_integer() ? v.template get<std::int64_t>() >= std::int64_t(lo) &&
                                      v.template get<std::int64_t>() <= std::int64_t(hi)
                                : d >= -top && d < top;
    if (!whole || !in_range)
      throw data_error(at + ": field '" + key + "' must be a whole number from " +
                       std::to_string(lo) + " to " + std::to_string(hi) + " (got " +
                       quote_input(v.dump()) + ")");
    return v.is_number_float() ? static_cast<T>(v.template get<double>()) : v.template get<T>();
  } else if constexpr (std::is_same_v<T, double>) {
    if (!v.is_number()) wrong_type(at, key, "a number");
    const double d = v.template get<double>();
    if (!std::isfinite(d)) throw data_error(at + ": field '" + key + "' must be finite");
    return d;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) wrong_type(at, key, "a string");
    return v.template get<std::string>();
  } else if constexpr (std::is_same_v<T, J>) {
    return v;
  } else {  // std::vector<U>
    if (!v.is_array()) wrong_type(at, key, "a list");
    T out;
    out.reserve(v.size());
    for (const auto& item : v) out.push_back(as<typename T::value_type, J>(item, key, at));
    return out;
  }
}

// The field as a T; absent -> "missing field", present but not a T -> "wrong type".
template <typename T, typename J>
T required(const J& rec, const char* key, const std::string& at) {
  if (!rec.is_object()) throw data_error(at + ": expected an object with field '" + key + "'");
  auto it = rec.find(std::string_view(key));  // no strlen per comparison
  if (it == rec.end()) throw data_error(at + ": missing field '" + key + "'");
  return as<T, J>(*it, key, at);
}

// The field as a T, or nullopt when it is absent or null.
template <typename T, typename J>
std::optional<T> present(const J& rec, const char* key, const std::string& at) {
  if (!rec.is_object()) return std::nullopt;
  auto it = rec.find(std::string_view(key));  // no strlen per comparison
  if (it == rec.end() || it->is_null()) return std::nullopt;
  return as<T, J>(*it, key, at);
}

// The field itself, not a copy (objects and lists: a record's prices, a framework's behaviours).
inline const nlohmann::json& required_ref(const nlohmann::json& rec, const char* key,
                                          const std::string& at) {
  if (!rec.is_object()) throw data_error(at + ": expected an object with field '" + key + "'");
  auto it = rec.find(std::string_view(key));  // no strlen per comparison
  if (it == rec.end()) throw data_error(at + ": missing field '" + key + "'");
  return *it;
}

// The field itself, or null when it is absent or null (a pointer into nlohmann's tree; for the
// flat tree a value, none when absent or null).
inline const nlohmann::json* present_ref(const nlohmann::json& rec, const char* key) {
  if (!rec.is_object()) return nullptr;
  auto it = rec.find(std::string_view(key));  // no strlen per comparison
  return it == rec.end() || it->is_null() ? nullptr : &*it;
}
inline json_detail::FlatValue present_ref(const json_detail::FlatValue& rec, const char* key) {
  const json_detail::FlatValue v = rec.find(key);
  return v && !v.is_null() ? v : json_detail::FlatValue();
}

}  // namespace gpusel::detail
