#include <map>
#include <memory>

#include "gpusel/base/error.hpp"
#include "gpusel/json/json_schema.hpp"
#include "gpusel/json/json_source.hpp"
#include "json_schema_internal.hpp"

namespace gpusel {

using json = nlohmann::json;
using schema_detail::Elided;
using schema_detail::run_check;

struct Schema::Impl {
  json root;
  schema_detail::KeywordIndex index;
  // Each top-level property's "items" schema, found once: a loader asks for it per record.
  std::map<std::string, const json*, std::less<>> items;

  // The "items" schema of the top-level array property `list`, if there is one.
  const json* item_schema(const std::string& list) const {
    const auto it = items.find(list);
    return it == items.end() ? nullptr : it->second;
  }

  void find_items() {
    auto props = root.find("properties");
    if (!root.is_object() || props == root.end() || !props->is_object()) return;
    for (const auto& [name, l] : props->items())
      if (l.is_object() && l.contains("items")) items.emplace(name, &l.at("items"));
  }
};

Schema::Schema(json schema) : impl_(std::make_unique<Impl>()) {
  impl_->root = std::move(schema);
  schema_detail::lint(impl_->root, impl_->root, "", impl_->index);
  schema_detail::compile_flat(impl_->index);
  impl_->find_items();
}

Schema::~Schema() = default;

std::vector<SchemaIssue> Schema::check(const json& doc) const {
  std::vector<SchemaIssue> issues;
  run_check(impl_->index, impl_->root, doc, "", nullptr, issues);
  return issues;
}

std::vector<SchemaIssue> Schema::check_outline(const json& outline, const std::string& list,
                                               std::size_t count) const {
  std::vector<SchemaIssue> issues;
  const Elided elided{"/" + pointer_escape(list), count};
  run_check(impl_->index, impl_->root, outline, "", &elided, issues);
  return issues;
}

std::vector<SchemaIssue> Schema::check_item(const json& item, const std::string& list,
                                            std::size_t index) const {
  std::vector<SchemaIssue> issues;
  const json* s = impl_->item_schema(list);
  if (!s) return issues;
  const std::string ptr = "/" + pointer_escape(list) + "/" + std::to_string(index);
  run_check(impl_->index, *s, item, ptr, nullptr, issues);
  return issues;
}

bool Schema::accepts_item(const json_detail::FlatValue& item, const std::string& list) const {
  const json* s = impl_->item_schema(list);
  return !s || schema_detail::run_flat_check(impl_->index, *s, item);
}

std::vector<SchemaIssue> check_schema(const json& schema, const json& doc) {
  return Schema(schema).check(doc);
}

void require_schema(const json& schema, const json& doc, const std::string& origin) {
  const auto issues = check_schema(schema, doc);
  if (issues.empty()) return;
  const auto& first = issues.front();
  std::string more =
      issues.size() > 1 ? " (and " + std::to_string(issues.size() - 1) + " more problem(s))" : "";
  throw data_error(origin + ": " + (first.pointer.empty() ? "/" : first.pointer) + ": " +
                   first.message + more);
}

}  // namespace gpusel
