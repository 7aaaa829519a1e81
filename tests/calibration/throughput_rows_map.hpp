#pragma once
// The vocabulary of throughput_measured.csv in gpusel's terms (throughput_rows_map.cpp).
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "gpusel/data/models.hpp"
#include "gpusel/memory/workload.hpp"

namespace tput_calibration {

using Row = std::map<std::string, std::string>;  // column -> cell

bool has(const std::string& s, const char* part);
int first_int(const std::string& s, int fallback);

gpusel::ModelArch arch_for(const std::string& model);
// {catalog id, what the mapping leaves out}, or nothing for a card gpusel does not know.
std::optional<std::pair<std::string, std::string>> card_for(const std::string& gpu);
gpusel::Precision precision_of(const std::string& precision_or_quant);
// The --engine a row's framework column names ("" when it names none).
std::string engine_of(const std::string& framework, const std::string& source);
// llama.cpp ROCm rows whose 4-bit prompts went through hipBLAS on `architecture` at the build's
// date: "llama.cpp-hipblas", else `engine` unchanged.
std::string rocm_prompt_engine(const std::string& engine, const std::string& framework,
                               const std::string& architecture);
// Prompt and generated lengths: "tg128", "pp512", "in 2048 / out 512", "256 generated".
std::pair<int, int> prompt_and_output(const std::string& seq_len);
// What a model-parallel row's flags leave out (context parallelism, an unstated micro-batch).
std::string parallel_note(const Row& r);
// Why a row cannot be put as gpusel flags, or "" when it can.
std::string unexpressible(const Row& r);

}  // namespace tput_calibration
