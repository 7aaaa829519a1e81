#pragma once
// Files from data/ compiled into the binary (see src/embed_data.cmake).
#include <span>
#include <string_view>

namespace gpusel {

struct EmbeddedFile {
  std::string_view path;  // relative to the repository root, e.g. "data/gpus.json"
  std::string_view text;
};

std::span<const EmbeddedFile> embedded_files();

// The text of an embedded file; throws Error(data) when the build did not embed it.
std::string_view embedded_text(std::string_view path);

}  // namespace gpusel
