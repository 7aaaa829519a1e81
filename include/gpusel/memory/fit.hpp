#pragma once
// The reverse question: what fits on a card, and what would make a workload fit.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusel/data/card_memory.hpp"
#include "gpusel/data/catalog.hpp"
#include "gpusel/memory/estimator.hpp"

namespace gpusel {

struct FitChange {
  std::string change;  // what to do, in words ("--mode qlora", "--shard zero3 --gpus 4")
  Workload workload;   // the changed workload, re-estimated below
  Estimate estimate;
  bool fits = false;
};

struct FitResult {
  Reserve reserve;          // the reserve applied: the given one, else the card's default
  double usable_bytes = 0;  // per card
  Estimate requested;       // the workload as given
  bool fits = false;
  int max_batch = 0;               // at the requested sequence length; 0: not even batch 1
  int max_seq_len = 0;             // at the requested batch; 0: not even 1 token
  int seq_len_cap = 0;             // the model's max_context, the search's upper bound
  std::vector<FitChange> changes;  // when it does not fit: the K37 remedies, fitting first
};

FitResult fit(const Workload& w, const Gpu& gpu, int count, const Reserve& reserve = {});

}  // namespace gpusel
