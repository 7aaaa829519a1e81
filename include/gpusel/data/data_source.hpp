#pragma once
// Where data comes from: the copy embedded at build time, or a user's file.
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/data/catalog.hpp"
#include "gpusel/data/models.hpp"

namespace gpusel {

struct DataPaths {
  std::string catalog;                   // replaces data/gpus.json when set
  std::vector<std::string> catalog_add;  // overlays, applied in order
  // Keep each card's source text for Gpu::raw() (`catalog show`, `catalog list --format
  // json`). Off, a user's file is not held once its cards are read: at 100,000 cards that
  // is 148 MB of the run's peak; raw() then gives an empty object for those cards.
  bool record_text = true;
};

// The default catalog (embedded), or `paths.catalog`, with every overlay merged in.
// Unreadable or invalid files throw Error(data) naming the file.
Catalog load_catalog(const DataPaths& paths);

// The model presets: the embedded data/models.json, or `path` checked as `catalog validate`
// checks it and refused with Error(data) "file:line:col: ..." at its first error.
std::vector<ModelArch> load_models(const std::string& path);

// The readers behind load_catalog and load_models, from text already read (`origin` names it
// in messages). `trusted`: the embedded data, checked in CI, read without the schema.
Catalog catalog_from_text(std::string text, const std::string& origin, bool trusted = false,
                          bool record_text = true);
std::vector<ModelArch> models_from_text(std::string_view text, const std::string& origin,
                                        bool trusted = false);

// Text of `path` when set, else of the embedded file `embedded_name`.
std::string load_text(const std::string& path, const std::string& embedded_name);

}  // namespace gpusel
