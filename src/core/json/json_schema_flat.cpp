// Whether a record of the flat tree conforms, without a message: the loaders' fast path. It
// answers exactly "would the full check (json_schema.cpp) report no issue", keyword for
// keyword; a record it refuses is checked again by the full check on nlohmann's tree, which
// writes the messages. Object members are found in each schema object's sorted name list
// (compiled once with the schema) and required members are bits of that list, so a record
// costs no string or map.
#include <algorithm>
#include <cmath>

#include "gpusel/json/json_schema.hpp"
#include "json/json_flat.hpp"
#include "json_schema_internal.hpp"

namespace gpusel {
namespace {

using json = nlohmann::json;
using json_detail::FlatType;
using json_detail::FlatValue;
using schema_detail::KeywordIndex;
using schema_detail::Keywords;

using schema_detail::kMaxPatternInput;
constexpr int kMaxFlatDepth = 200;  // deeper (a $ref loop): left to the full check

unsigned types_of(const FlatValue& v) {
  using namespace schema_detail;
  switch (v.type()) {
    case FlatType::null:
      return t_null;
    case FlatType::boolean:
      return t_boolean;
    case FlatType::object:
      return t_object;
    case FlatType::array:
      return t_array;
    case FlatType::string:
      return t_string;
    case FlatType::number_integer:
    case FlatType::number_unsigned:
      return t_number | t_integer;
    case FlatType::number_float: {
      const double d = v.get<double>();
      return std::isfinite(d) && std::trunc(d) == d ? t_number | t_integer : t_number;
    }
  }
  return 0;
}

// nlohmann's equality of a schema value and a record's value.
bool equal(const json& a, const FlatValue& b) {
  if (b.is_string()) return a.is_string() && a.get_ref<const std::string&>() == b.str();
  return a == b.to_json();
}

class FlatChecker {
 public:
  bool sub(const Keywords::Sub& s, const FlatValue& v, int depth) {
    if (s.boolean) return s.accept;
    if (depth > kMaxFlatDepth) return false;
    return !s.kw || check(*s.kw, v, depth);  // lint indexes every schema object
  }

  bool check(const Keywords& kw, const FlatValue& v, int depth) {
    if (kw.ref && !sub(kw.ref_sub, v, depth + 1)) return false;
    if (kw.type && !(kw.type_mask & types_of(v))) return false;
    if (!leaf(kw, v)) return false;
    if (v.is_object() && !object(kw, v, depth)) return false;
    if (v.is_array() && kw.items)
      for (auto it = v.begin(); it != v.end(); ++it)
        if (!sub(kw.items_sub, *it, depth + 1)) return false;
    return combinators(kw, v, depth);
  }

 private:
  static bool leaf(const Keywords& kw, const FlatValue& v) {
    if (kw.const_value && !(kw.const_string ? v.is_string() && v.str() == *kw.const_string
                                            : equal(*kw.const_value, v)))
      return false;
    if (kw.enum_values && !in_enum(kw, v)) return false;
    if (v.is_number() && !number(kw, v.get<double>())) return false;
    if (v.is_string() && !string(kw, v.str())) return false;
    if (v.is_array()) {
      if (kw.min_items && v.size() < kw.min_items_v) return false;
      if (kw.max_items && v.size() > kw.max_items_v) return false;
      if (kw.unique_items && !unique(v)) return false;
    }
    return true;
  }

  // A string enum compares views (nothing but a string equals a string); any other through
  // nlohmann's equality, as the full check.
  static bool in_enum(const Keywords& kw, const FlatValue& v) {
    if (kw.enum_strings_only) {
      if (!v.is_string()) return false;
      const std::string_view s = v.str();
      return std::find(kw.enum_strings.begin(), kw.enum_strings.end(), s) != kw.enum_strings.end();
    }
    return std::any_of(kw.enum_values->begin(), kw.enum_values->end(),
                       [&v](const json& o) { return equal(o, v); });
  }

  static bool number(const Keywords& kw, double x) {
    return (!kw.minimum || x >= kw.minimum_v) && (!kw.maximum || x <= kw.maximum_v) &&
           (!kw.exclusive_minimum || x > kw.exclusive_minimum_v) &&
           (!kw.exclusive_maximum || x < kw.exclusive_maximum_v);
  }

  static bool string(const Keywords& kw, std::string_view s) {
    if (kw.min_length || kw.max_length) {
      const std::size_t n = schema_detail::code_points(s);
      if (kw.min_length && n < kw.min_length_v) return false;
      if (kw.max_length && n > kw.max_length_v) return false;
    }
    if (kw.pattern && (s.size() > kMaxPatternInput || !kw.pattern->search(s))) return false;
    if (kw.format_v == Keywords::Format::date && !schema_detail::is_date(s)) return false;
    if (kw.format_v == Keywords::Format::uri && !schema_detail::is_uri(s)) return false;
    return true;
  }

  // No two equal items: strings by a sort of their views, anything else as nlohmann compares.
  static bool unique(const FlatValue& v) {
    std::vector<std::string_view> strings;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!(*it).is_string()) {
        const json all = v.to_json();
        for (std::size_t i = 0; i < all.size(); ++i)
          for (std::size_t j = i + 1; j < all.size(); ++j)
            if (all[i] == all[j]) return false;
        return true;
      }
      strings.push_back((*it).str());
    }
    std::sort(strings.begin(), strings.end());
    return std::adjacent_find(strings.begin(), strings.end()) == strings.end();
  }

  // A member's place among the schema object's names: looked for from after the previous
  // member's, as a record's keys mostly come in the (sorted) order of the names.
  static std::size_t name_index(const Keywords& kw, const json_detail::FlatKey& key,
                                std::string_view text, std::size_t& from) {
    const std::size_t n = kw.member_keys.size();
    for (std::size_t step = 0, k = from; step < n; ++step, k = k + 1 == n ? 0 : k + 1) {
      const json_detail::FlatKey& probe = kw.member_keys[k];
      if (probe.prefix == key.prefix && probe.size == key.size &&
          json_detail::same_key(key, text, probe, kw.member_names[k])) {
        from = k + 1 == n ? 0 : k + 1;
        return k;
      }
    }
    return n;
  }

  bool object(const Keywords& kw, const FlatValue& v, int depth) {
    if (kw.required && !kw.required_fits) return false;
    std::uint64_t seen = 0;
    std::size_t from = 0;
    const json_detail::FlatTree& t = *v.tree();
    const json_detail::FlatKey* keys = t.keys(v.node());
    for (std::uint32_t m = 0; m < v.node().count; ++m) {
      const FlatValue child(&t, keys[m].node);
      const std::size_t k = name_index(kw, keys[m], child.key(), from);
      const bool prop = k < kw.member_schemas.size() && kw.member_schemas[k];
      if (k < 64) seen |= std::uint64_t{1} << k;
      if (prop) {
        if (!sub(kw.member_subs[k], child, depth + 1)) return false;
      } else if (kw.additional && !sub(kw.additional_sub, child, depth + 1)) {
        return false;  // false: an unknown field, a warning the full check words
      }
    }
    return !kw.required || (seen & kw.required_bits) == kw.required_bits;
  }

  bool combinators(const Keywords& kw, const FlatValue& v, int depth) {
    if (kw.all_of)
      for (const auto& s : kw.all_of_subs)
        if (!sub(s, v, depth + 1)) return false;
    if (kw.any_of && std::none_of(kw.any_of_subs.begin(), kw.any_of_subs.end(),
                                  [&](const Keywords::Sub& s) { return sub(s, v, depth + 1); }))
      return false;
    if (kw.one_of) {
      std::size_t matched = 0;
      for (const auto& s : kw.one_of_subs) matched += sub(s, v, depth + 1);
      if (matched != 1) return false;
    }
    return true;
  }
};

Keywords::Sub sub_of(const KeywordIndex& index, const json& s) {
  Keywords::Sub out;
  if (s.is_boolean()) {
    out.boolean = true, out.accept = s.get<bool>();
  } else if (const auto it = index.find(&s); it != index.end()) {
    out.kw = &it->second;
  }
  return out;
}

std::vector<Keywords::Sub> subs_of(const KeywordIndex& index, const json* list) {
  std::vector<Keywords::Sub> out;
  if (list)
    for (const json& s : *list) out.push_back(sub_of(index, s));
  return out;
}

// One entry's compiled view: the schema's values read once here instead of per record.
void compile_entry(const KeywordIndex& index, Keywords& kw) {
  if (kw.ref) kw.ref_sub = sub_of(index, *kw.ref);
  if (kw.items) kw.items_sub = sub_of(index, *kw.items);
  if (kw.additional) kw.additional_sub = sub_of(index, *kw.additional);
  for (const json* m : kw.member_schemas)
    kw.member_subs.push_back(m ? sub_of(index, *m) : Keywords::Sub{});
  kw.all_of_subs = subs_of(index, kw.all_of);
  kw.any_of_subs = subs_of(index, kw.any_of);
  kw.one_of_subs = subs_of(index, kw.one_of);
  const auto number = [](const json* v) { return v ? v->get<double>() : 0.0; };
  const auto count = [](const json* v) { return v ? v->get<std::size_t>() : std::size_t{0}; };
  kw.minimum_v = number(kw.minimum), kw.maximum_v = number(kw.maximum);
  kw.exclusive_minimum_v = number(kw.exclusive_minimum);
  kw.exclusive_maximum_v = number(kw.exclusive_maximum);
  kw.min_items_v = count(kw.min_items), kw.max_items_v = count(kw.max_items);
  kw.min_length_v = count(kw.min_length), kw.max_length_v = count(kw.max_length);
  if (kw.enum_values) {
    kw.enum_strings_only = std::all_of(kw.enum_values->begin(), kw.enum_values->end(),
                                       [](const json& o) { return o.is_string(); });
    for (const json& o : *kw.enum_values)
      if (o.is_string()) kw.enum_strings.push_back(o.get_ref<const std::string&>());
  }
  if (kw.const_value && kw.const_value->is_string())
    kw.const_string = &kw.const_value->get_ref<const std::string&>();
  if (kw.format) {
    const std::string& name = kw.format->get_ref<const std::string&>();
    kw.format_v = name == "date"  ? Keywords::Format::date
                  : name == "uri" ? Keywords::Format::uri
                                  : Keywords::Format::none;
  }
}

}  // namespace

namespace schema_detail {

bool run_flat_check(const KeywordIndex& index, const json& s, const FlatValue& v) {
  return FlatChecker().sub(sub_of(index, s), v, 0);
}

void compile_flat(KeywordIndex& index) {
  for (auto& [schema, kw] : index) compile_entry(index, kw);
}

}  // namespace schema_detail
}  // namespace gpusel
