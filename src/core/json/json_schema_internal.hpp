#pragma once
// Shared by json_schema.cpp (checking documents) and json_schema_lint.cpp (checking the
// schema itself and indexing its keywords); not part of the public API.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpusel/json/json_schema.hpp"
#include "json/json_flat.hpp"
#include "json/pattern.hpp"

namespace gpusel::schema_detail {

using json = nlohmann::json;

// Matching is linear, but a pattern guards ids, codes and dates: a longer string is reported
// rather than matched (by the full check and the flat one alike).
constexpr std::size_t kMaxPatternInput = 1000;

// The keywords of one schema object, found once when the schema is read so that checking a
// value costs one hash lookup instead of a map search per keyword. Null: keyword absent.
struct Keywords {
  const json* ref = nullptr;  // the schema the "$ref" names, already resolved
  const json *type = nullptr, *const_value = nullptr, *enum_values = nullptr;
  const json *required = nullptr, *properties = nullptr, *additional = nullptr;
  const json *items = nullptr, *min_items = nullptr, *max_items = nullptr;
  bool unique_items = false;
  const json *minimum = nullptr, *maximum = nullptr, *exclusive_minimum = nullptr,
             *exclusive_maximum = nullptr;
  const json *min_length = nullptr, *max_length = nullptr, *format = nullptr;
  const json *all_of = nullptr, *any_of = nullptr, *one_of = nullptr;
  unsigned type_mask = 0;                                 // bits of TypeBit for the names in "type"
  std::unordered_map<std::string, const json*> property;  // "properties", hashed
  std::unordered_set<std::string_view> required_names;    // "required", hashed (views of it)
  std::vector<std::string_view> required_sorted;          // the same names, sorted
  // Compiled for the flat checker (json_schema_flat.cpp): the names of "properties" and
  // "required" together, sorted, each with its property schema (null: required, no schema);
  // the required ones as bits of that list (`required_fits`: all of them, as distinct strings,
  // in 64 bits; otherwise the flat checker leaves the object to the full one).
  std::vector<std::string_view> member_names;
  std::vector<const json*> member_schemas;
  std::vector<json_detail::FlatKey> member_keys;  // each name's length and first bytes
  std::uint64_t required_bits = 0;
  bool required_fits = true;
  std::string pattern_source;
  std::shared_ptr<const json_detail::Pattern> pattern;
  std::string ref_name;  // "#/$defs/x", for messages

  // The flat checker's compiled view (compile_flat, once the whole schema is indexed), so that
  // a record costs no hash lookup per schema node and no nlohmann access or comparison: each
  // subschema as its Keywords (or the boolean it is), limits as numbers, string enums and
  // consts as views. Read only where the pointer above says the keyword is there.
  struct Sub {
    const Keywords* kw = nullptr;  // null: a boolean schema (`accept`) or one with no keywords
    bool boolean = false, accept = true;
  };
  enum class Format : std::uint8_t { none, date, uri };
  Sub ref_sub, items_sub, additional_sub;
  std::vector<Sub> member_subs;  // member_schemas' (null ones unused)
  std::vector<Sub> all_of_subs, any_of_subs, one_of_subs;
  double minimum_v = 0, maximum_v = 0, exclusive_minimum_v = 0, exclusive_maximum_v = 0;
  std::size_t min_items_v = 0, max_items_v = 0, min_length_v = 0, max_length_v = 0;
  bool enum_strings_only = false;  // every "enum" value is a string: enum_strings
  std::vector<std::string_view> enum_strings;
  const std::string* const_string = nullptr;  // "const" when it is a string
  Format format_v = Format::none;
};

// JSON Schema's type names as bits, so that a type check is a mask test.
enum TypeBit : unsigned {
  t_null = 1,
  t_boolean = 2,
  t_object = 4,
  t_array = 8,
  t_number = 16,
  t_integer = 32,
  t_string = 64
};
unsigned type_bit(const std::string& name);

// Values as messages show them ("'abc'", "an object", "string '24'"), with "a"/"an".
std::string brief(const json& v);
std::string what_is(const json& v);
std::string with_article(const std::string& type);
std::string plain(const json& v);  // a string as is, anything else dumped
// The type bits `v` satisfies: a number with no fraction is also an integer.
unsigned types_of(const json& v);
bool is_date(std::string_view s);  // format "date": a real calendar date YYYY-MM-DD
bool is_uri(std::string_view s);   // format "uri": scheme://rest, no spaces
bool in_enum(const json& options, const json& v);
std::size_t code_points(std::string_view s);  // UTF-8 code points

using KeywordIndex = std::unordered_map<const json*, Keywords>;

// A list checked element by element (Schema::check_outline): its pointer and real length.
struct Elided {
  std::string pointer;
  std::size_t count = 0;
};

// Checks value `v` at `ptr` against schema `s` (a node of the schema `index` was built from;
// its $refs resolve through the index), adding what it breaks.
void run_check(const KeywordIndex& index, const json& s, const json& v, const std::string& ptr,
               const Elided* elided, std::vector<SchemaIssue>& out);

// Whether `v` (a record of the flat tree) conforms to schema `s`: true exactly when run_check
// would find no issue; no message is written (json_schema_flat.cpp).
bool run_flat_check(const KeywordIndex& index, const json& s, const json_detail::FlatValue& v);
// Fills every index entry's compiled view for run_flat_check (after lint indexed the schema).
void compile_flat(KeywordIndex& index);

// Error(data) "schema #<where>: <what>"; `where` is a JSON pointer into the schema.
[[noreturn]] void schema_error(const std::string& where, const std::string& what);

// Checks schema `s` (inside `root`) and everything below it, adding each schema object's
// keywords to `index`. Throws schema_error for anything this validator does not implement
// or that is malformed: unknown keywords or formats, bad $refs, patterns that do not compile.
void lint(const json& root, const json& s, const std::string& where, KeywordIndex& index);

}  // namespace gpusel::schema_detail
