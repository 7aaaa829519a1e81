#pragma once
// How `gpusel serve` looks: the ranking table, the one-configuration verdict, the JSON.
#include <string>

#include "cli/rank_options.hpp"
#include "cli/render.hpp"
#include "gpusel/answer/serve.hpp"

namespace gpusel::cli {

struct ServeView {
  const Session& session;
  const ServeQuery& query;
  const ServeAnswer& answer;
  bool explain = false;
};

Output serve_output(const ServeView& v);

// The JSON document (schema_version 1; README "serve" lists its fields).
nlohmann::json serve_json(const ServeView& v, const std::vector<ServeOption>& rows);

// "1000:300" -> mean 1000, sd 300; "1000" -> sd 0. Error(usage) naming the flag otherwise.
Lengths parse_lengths(const std::string& flag, const std::string& text);

}  // namespace gpusel::cli
