#include "gpusel/data/data_source.hpp"

#include "gpusel/base/heap.hpp"
#include "gpusel/base/text.hpp"
#include "gpusel/data/snapshot.hpp"
#include "gpusel/json/embedded.hpp"
#include "records_internal.hpp"
#include "validate_internal.hpp"

namespace gpusel {
namespace {

Catalog catalog_from_input(std::shared_ptr<const InputText> text, const std::string& origin,
                           bool trusted, bool record_text) {
  Catalog cat;
  cat.origin = origin;
  detail::DocumentSink sink;
  sink.top = [&cat](const nlohmann::json& top) {
    if (auto r = top.find("reviewed"); r != top.end() && r->is_string()) cat.reviewed = *r;
  };
  // Each card is written to its own place: a long list's records are read on several threads
  // (document_waves.hpp), its places made a wave ahead (grow). A file with an error is
  // refused whole, so no place stays empty.
  sink.size = [&cat](std::size_t count) {
    cat.gpus.reserve(count);
    advise_huge_pages(cat.gpus.data(), count * sizeof(Gpu));
  };
  sink.grow = [&cat](std::size_t count) { cat.gpus.resize(count); };
  const auto read = [&cat, &text, record_text](std::size_t i, const auto& rec,
                                               const std::string& at, detail::Span span) {
    Gpu g = detail::parse_gpu_record(rec, at);
    if (record_text) g.set_raw({text, span.begin, span.end - span.begin});
    cat.gpus[i] = std::move(g);
  };
  sink.record = [&read](std::size_t i, const nlohmann::json& rec, const std::string& at,
                        detail::Span span) { read(i, rec, at, span); };
  sink.record_flat = [&read](std::size_t i, const json_detail::FlatValue& rec,
                             const std::string& at, detail::Span span) { read(i, rec, at, span); };
  bool indexed = false;  // the pass's id table taken as the catalog's index
  sink.ids = [&cat, &indexed](std::unordered_map<std::string, std::size_t>&& ids) {
    indexed = ids.size() == cat.gpus.size();
    if (indexed) cat.adopt_index(std::move(ids));
  };
  detail::PassOptions pass;
  pass.expected = &detail::gpus_kind();
  pass.trusted = trusted;
  pass.errors_only = true;
  // Cards that do not keep their text: each record's text goes once it is read, so that the
  // file and its cards are not held at once (at 100,000 cards: 148 MB of a 300 MB peak).
  if (!record_text) pass.release = [&text](std::size_t b, std::size_t e) { text->release(b, e); };
  pass.release_rereads = text->rereadable();
  const ValidateOptions opt{today_iso(), nullptr};
  detail::throw_first_error(detail::check_document(text->view(), origin, opt, pass, &sink), origin);
  text.reset();  // held by the cards only when they keep their text: gone before the index
  if (!indexed) cat.reindex();
  return cat;
}

// The embedded catalog comes from the build's snapshot (its JSON checked when the snapshot
// was made, and by `catalog validate --strict` in CI); a user's file goes through every check
// `catalog validate` runs and is refused at its first error, located.
Catalog catalog_from(const std::string& path, bool record_text) {
  if (path.empty()) {
    if (auto shipped = snapshot_catalog(shipped_snapshot())) return std::move(*shipped);
    return catalog_from_text(load_text("", "data/gpus.json"), "embedded data/gpus.json", true,
                             true);
  }
  return catalog_from_input(InputText::read(path), path, false, record_text);
}

}  // namespace

Catalog catalog_from_text(std::string content, const std::string& origin, bool trusted,
                          bool record_text) {
  return catalog_from_input(std::make_shared<const InputText>(std::move(content)), origin, trusted,
                            record_text);
}

std::string load_text(const std::string& path, const std::string& embedded_name) {
  if (path.empty()) return std::string(embedded_text(embedded_name));
  return read_file(path);
}

std::vector<ModelArch> load_models(const std::string& path) {
  if (path.empty())
    if (auto shipped = snapshot_models(shipped_snapshot())) return std::move(*shipped);
  const std::string origin = path.empty() ? "data/models.json" : path;
  return models_from_text(load_text(path, "data/models.json"), origin, path.empty());
}

std::vector<ModelArch> models_from_text(std::string_view text, const std::string& origin,
                                        bool trusted) {
  std::vector<ModelArch> out;
  detail::DocumentSink sink;
  sink.record = [&out](std::size_t, const nlohmann::json& rec, const std::string& at,
                       detail::Span) { out.push_back(detail::parse_model_record(rec, at)); };
  detail::PassOptions pass;
  pass.expected = &detail::models_kind();
  pass.trusted = trusted;
  pass.errors_only = true;
  const ValidateOptions opt{today_iso(), nullptr};
  detail::throw_first_error(detail::check_document(text, origin, opt, pass, &sink), origin);
  return out;
}

Catalog load_catalog(const DataPaths& paths) {
  Catalog cat = catalog_from(paths.catalog, paths.record_text);
  for (const auto& overlay : paths.catalog_add)
    merge_catalog(cat, catalog_from(overlay, paths.record_text));
  return cat;
}

}  // namespace gpusel
