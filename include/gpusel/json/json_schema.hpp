#pragma once
// A validator for the subset of JSON Schema draft 2020-12 that data/schema/*.json use.
//
// Supported keywords: type (a name or an array of names; "integer" = a number with no
// fraction), properties, required, additionalProperties, items, enum, const, minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern (ECMAScript
// syntax, matched in linear time; unanchored as the spec says; see json/pattern.hpp for the
// subset), minItems, maxItems, uniqueItems, $ref ("#/$defs/<name>" only), $defs, anyOf,
// oneOf, allOf, format ("date" = a real calendar date YYYY-MM-DD, "uri" = scheme://...
// without spaces). Annotations ($schema, $id, title, description, $comment, examples,
// default) are ignored. Boolean schemas (true / false) work anywhere a schema does.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpusel {
namespace json_detail {
class FlatValue;  // json/json_flat.hpp: a record read as a flat tree
}

struct SchemaIssue {
  std::string pointer;         // JSON pointer (RFC 6901) of the offending value in the document
  std::string message;         // names the rule: "must be >= 0 (got -3)"
  bool unknown_field = false;  // set for "unknown field 'x'" (additionalProperties: false)
};

// A schema read once (checked, its keywords indexed, its patterns compiled) and then checked
// against any number of documents. Throws Error(ExitCode::data) "schema #/<where>: <what>"
// when the schema itself is wrong or uses something this validator does not implement (an
// unknown keyword or format, a $ref that is not local or does not resolve, a pattern that does
// not compile), so that no rule in a schema is silently left unchecked.
class Schema {
 public:
  explicit Schema(nlohmann::json schema);
  ~Schema();
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

  // All the ways `doc` breaks the schema, in document order; empty when it conforms. Throws
  // Error(data) on a $ref cycle or a document nested too deeply to check.
  std::vector<SchemaIssue> check(const nlohmann::json& doc) const;

  // A document checked record by record, so that a large one is never held whole: `outline`
  // is the document with its top-level array `list` emptied ("gpus": []) and `count` the
  // number of elements it had (minItems/maxItems see the real count); each element is then
  // checked with check_item against the list's "items" schema, under pointer /list/index.
  std::vector<SchemaIssue> check_outline(const nlohmann::json& outline, const std::string& list,
                                         std::size_t count) const;
  std::vector<SchemaIssue> check_item(const nlohmann::json& item, const std::string& list,
                                      std::size_t index) const;
  // Whether check_item would find nothing in `item` (a record of the loaders' flat tree),
  // answered without writing a message.
  bool accepts_item(const json_detail::FlatValue& item, const std::string& list) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One-off check: Schema(schema).check(doc).
std::vector<SchemaIssue> check_schema(const nlohmann::json& schema, const nlohmann::json& doc);

// Throws Error(data) "origin: <pointer>: <message> (and N more problem(s))" when `doc` breaks
// `schema`: the loaders' one-line refusal of a document that does not conform.
void require_schema(const nlohmann::json& schema, const nlohmann::json& doc,
                    const std::string& origin);

}  // namespace gpusel
