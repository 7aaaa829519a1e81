#pragma once
// A validator for the subset of JSON Schema draft 2020-12 that data/schema/*.json use.
//
// Supported keywords: type (a name or an array of names; "integer" = a number with no
// fraction), properties, required, additionalProperties, items, enum, const, minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern (ECMAScript,
// unanchored as the spec says), minItems, maxItems, uniqueItems, $ref ("#/$defs/<name>" only),
// $defs, anyOf, oneOf, allOf, format ("date" = a real calendar date YYYY-MM-DD, "uri" =
// scheme://... without spaces). Annotations ($schema, $id, title, description, $comment,
// examples, default) are ignored. Boolean schemas (true / false) work anywhere a schema does.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpusel {

struct SchemaIssue {
  std::string pointer;         // JSON pointer (RFC 6901) of the offending value in the document
  std::string message;         // names the rule: "must be >= 0 (got -3)"
  bool unknown_field = false;  // set for "unknown field 'x'" (additionalProperties: false)
};

// All the ways `doc` breaks `schema`, in document order; empty when it conforms.
// Throws Error(ExitCode::data) "schema #/<where>: <what>" when the schema itself is wrong or
// uses something this validator does not implement (an unknown keyword or format, a $ref that
// is not local or does not resolve, a pattern that does not compile, a $ref cycle), so that
// no rule in a schema is silently left unchecked.
std::vector<SchemaIssue> check_schema(const nlohmann::json& schema, const nlohmann::json& doc);

// Throws Error(data) "origin: <pointer>: <message> (and N more problem(s))" when `doc` breaks
// `schema`: the loaders' one-line refusal of a document that does not conform.
void require_schema(const nlohmann::json& schema, const nlohmann::json& doc,
                    const std::string& origin);

}  // namespace gpusel
