#pragma once
// Shared by json_schema.cpp (checking documents) and json_schema_lint.cpp (checking the
// schema itself); not part of the public API.
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

namespace gpusel::schema_detail {

// Error(data) "schema #<where>: <what>"; `where` is a JSON pointer into the schema.
[[noreturn]] void schema_error(const std::string& where, const std::string& what);

// The compiled ECMAScript regex for `pattern`, compiled once per process.
// Throws std::regex_error when it does not compile.
const std::regex& regex_for(const std::string& pattern);

// The schema that `ref` ("#/$defs/<name>") names in `root`; schema_error otherwise.
const nlohmann::json& resolve(const nlohmann::json& root, const nlohmann::json& ref,
                              const std::string& where);

// Throws schema_error for anything in schema `s` this validator does not implement or that
// is malformed: unknown keywords or formats, bad $refs, patterns that do not compile.
void lint(const nlohmann::json& root, const nlohmann::json& s, const std::string& where);

}  // namespace gpusel::schema_detail
