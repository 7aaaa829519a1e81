#pragma once
// The bytes of the shipped data's snapshot (gpusel/data/snapshot.hpp), alone: what the
// generated source and no_snapshot.cpp define, kept free of heavy headers so both compile in
// a moment.
#include <string_view>

namespace gpusel {

// The snapshot compiled into this build; empty in the tool that makes it (and in a
// cross-compiled build).
std::string_view shipped_snapshot();

}  // namespace gpusel
