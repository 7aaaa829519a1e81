#pragma once
// The shipped catalog, cloud offers, model presets, platforms and storage formats as typed
// records, made at build time: a small tool (src/snapshot/make_snapshot.cpp) reads the
// embedded data/gpus.json, cloud.json, models.json, platforms.json and quantizations.json
// through the loaders, with every check a user's file gets (quantizations: its schema and the
// typed read), and writes their records in a compact form the binary embeds (rank/ adds the
// rules: rules_snapshot.hpp). At
// run time the loaders read the shipped data from it, building no JSON tree; a user's file
// (--catalog, --cloud, --models, --rules) and every overlay is still read as JSON, and
// `catalog validate` still checks the JSON text itself.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/data/cloud.hpp"
#include "gpusel/data/models.hpp"
#include "gpusel/data/platforms.hpp"
#include "gpusel/data/quantization.hpp"
#include "gpusel/data/shipped_snapshot.hpp"

namespace gpusel {

struct ShippedData {
  Catalog catalog;
  Cloud cloud;
  std::vector<ModelArch> models;
  Platforms platforms;
  Quantizations quantizations;
  bool operator==(const ShippedData&) const = default;
};

// What the snapshot is made from: the embedded JSON read by the loaders as a user's file
// (schema and semantic checks; Error(data) at the first error), never from a snapshot.
ShippedData shipped_from_json();

// The snapshot's bytes for `data`; each record's raw text stays in the embedded JSON, kept
// as its place there.
std::string encode_snapshot(const ShippedData& data);

// The records of one shipped file from a snapshot (origins as the loaders name the embedded
// files); nullopt for an empty snapshot or one made from other data than this build embeds
// (then the loaders read the JSON). Error(data) for a malformed one.
std::optional<Catalog> snapshot_catalog(std::string_view snapshot);
std::optional<Cloud> snapshot_cloud(std::string_view snapshot);
std::optional<std::vector<ModelArch>> snapshot_models(std::string_view snapshot);
std::optional<Platforms> snapshot_platforms(std::string_view snapshot);
std::optional<Quantizations> snapshot_quantizations(std::string_view snapshot);

}  // namespace gpusel
