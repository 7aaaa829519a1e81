#pragma once
// The reverse question: what fits on a card, and what would make a workload fit.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/data/card_memory.hpp"
#include "gpusel/data/catalog.hpp"
#include "gpusel/memory/estimator.hpp"

namespace gpusel {

// One workload change of KNOWLEDGE K37 (QLoRA, checkpointing, an 8-bit optimizer, chunked
// loss, quantized inference...): its flags, and what it does to a workload.
struct WorkloadChange {
  std::string change;  // "--mode qlora (NF4 base)"
  std::function<void(Workload&)> edit;
  std::string key;  // what it sets: a later change with the same key supersedes it
};

// The changes that apply to `w`, from the least to the most disruptive: the order a user
// tries them in. Cards, counts and sequence length are not among them (fit adds those).
std::vector<WorkloadChange> workload_changes(const Workload& w);

struct FitChange {
  std::string change;  // what to do, in words ("--mode qlora", "--shard zero3 --gpus 4")
  Workload workload;   // the changed workload, re-estimated below
  Estimate estimate;
  bool fits = false;
};

struct FitResult {
  Reserve reserve;              // the reserve applied: the given one, else the card's default
  double usable_bytes = 0;      // per card
  Workload requested_workload;  // the workload on `count` cards (on_gpus: its sharding)
  Estimate requested;           // its estimate
  bool fits = false;
  int max_batch = 0;    // at the requested sequence length (image side); 0: not even batch 1
  int max_seq_len = 0;  // at the requested batch; 0: not even 1 token (or a vision model)
  int seq_len_cap = 0;  // the model's max_context, the search's upper bound
  // Vision models (CNN, ViT): their length is the input image's side, not a sequence.
  int image_side = 0;      // the requested side in pixels; 0: not a vision model
  int max_image_side = 0;  // the largest side that fits at the requested batch (up to 16384)
  // When it does not fit: the K37 remedies, fitting first, then more cards where a platform
  // takes them (naming it), then the longest sequence that fits.
  std::vector<FitChange> changes;
};

FitResult fit(const Workload& w, const Gpu& gpu, int count, const Reserve& reserve = {});

}  // namespace gpusel
