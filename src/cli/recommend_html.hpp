#pragma once
// `recommend --format html`: the ranking, chart, warnings, buy-or-rent comparison and data
// dates on one self-contained page (report/html.hpp lays it out and escapes it).
#include <string>

#include "cli/context.hpp"
#include "cli/rank_options.hpp"
#include "gpusel/answer/answers.hpp"

namespace gpusel::cli {

// `summary`: the text below the table (considered/rejected counts, remedies), line by line.
std::string recommend_html(Context& ctx, const Session& s, const RecommendAnswer& answer,
                           const std::string& summary);

}  // namespace gpusel::cli
