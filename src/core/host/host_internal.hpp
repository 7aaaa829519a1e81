#pragma once
// Text helpers the host parsers share.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpusel::host_detail {

std::string trimmed(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);
std::vector<std::string> lines(std::string_view text);
// A plain decimal number ("81920", "3197", "65536.00"); nullopt for "[N/A]", "-", "".
std::optional<double> number(std::string_view s);
// "16 GB", "1536 MB", "8192 MiB" -> bytes (binary units, as the tools mean them).
std::optional<double> size_bytes(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);

inline constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace gpusel::host_detail
