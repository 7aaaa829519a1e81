// Reading a long list's records on several threads (document.cpp). A record's strict flat
// build, schema check, semantic checks and the sink's flat reading depend on no other record,
// so a wave of records is read across the threads; what depends on order (duplicate ids, the
// findings' order, giving text back, the full way for a record with a finding) stays on the
// caller's thread, which takes the wave's answers in order.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpusel/data/validate.hpp"
#include "json/json_flat.hpp"

namespace gpusel::detail {

// One record read ahead of its turn.
struct Prepared {
  enum class State {
    fast,    // no finding but notes, read by the sink: kept unless its id is a duplicate
    full,    // the schema or a check found something, or the sink refused it: the full way
    syntax,  // its strict build failed: the scanner words the error
  };
  State state = State::full;
  std::optional<std::string> id;  // the fast path's id, checked for duplicates in order
  std::vector<Diagnostic> notes;  // notes its semantic checks wrote, added in order
};

// Calls prepare(i, tree) for every i in [begin, end), in chunks over trees.size() threads
// (for_chunks: each thread its own tree, kept between waves); out[i - begin] is record i's
// answer. `prepare` must be safe to call concurrently. The caller's thread runs `alongside`
// first (taking the wave before in order), then prepares too.
void prepare_wave(std::size_t begin, std::size_t end,
                  const std::function<Prepared(std::size_t, json_detail::FlatTree&)>& prepare,
                  std::vector<json_detail::FlatTree>& trees, std::vector<Prepared>& out,
                  const std::function<void()>& alongside = {});

}  // namespace gpusel::detail
