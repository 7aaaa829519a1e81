#pragma once
// The typed readers of one record each loader applies, shared with `catalog validate` (which
// runs them as its last check) through the document pass. Not a public header.
#include <nlohmann/json.hpp>
#include <string>

#include "gpusel/data/catalog.hpp"
#include "gpusel/data/cloud.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/data/platforms.hpp"

namespace gpusel::detail {

// Each throws Error(data) "<at>: ..." for a field that is missing, mistyped or out of range.
// parse_gpu_record and parse_offer_record read either tree (nlohmann's, or a record's flat tree:
// json/json_flat.hpp); both are instantiated in catalog.cpp and cloud.cpp.
template <typename J>
Gpu parse_gpu_record(const J& rec, const std::string& at);
template <typename J>
Offer parse_offer_record(const J& rec, const std::string& at);
ModelArch parse_model_record(const nlohmann::json& rec, const std::string& at);
// Error(data) at `at` when a transformer's params are below its own shape's embedding and LM
// head, or its active count is not within (0, params].
void check_count(const ModelArch& m, const std::string& at);
// The record's shipped_weights (nullopt when absent or null); Error(data) on a bad field.
std::optional<ShippedWeights> parse_shipped(const nlohmann::json& rec, const std::string& at);

// A cloud document's "reviewed" and "defaults" (`overlay`: either may be absent).
// A platforms document's "reviewed", "psu" and "networks"; then each platform, its network
// looked up among those networks.
void parse_platforms_top(Platforms& out, const nlohmann::json& doc, const std::string& origin);
Platform parse_platform_record(const Platforms& top, const nlohmann::json& rec,
                               const std::string& at);

void parse_cloud_top(Cloud& c, const nlohmann::json& doc, const std::string& origin, bool overlay);

}  // namespace gpusel::detail
