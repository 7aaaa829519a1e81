#pragma once
// The estimator's and the cards' named constants, each with its unit and source in
// data/constants.json (compiled into the binary).
#include <string_view>

namespace gpusel {

// A constant of the embedded data/constants.json; Error(data) when missing.
double data_constant(std::string_view name);

}  // namespace gpusel
