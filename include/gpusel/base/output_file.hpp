#pragma once
// Writing a result to a file the user named (-o): all of it or nothing.
#include <string>
#include <string_view>

namespace gpusel {

// Writes `text` to `path` atomically: a temporary file in the same folder, flushed to disk,
// then renamed over `path`, so a reader never sees half a file and a failure leaves any
// earlier file as it was. The new file gets the usual permissions (0666 less the umask).
// Error(usage) naming the path and the reason when the folder is missing, not writable,
// the path is a folder, or the disk is full.
void write_file_atomic(const std::string& path, std::string_view text);

}  // namespace gpusel
