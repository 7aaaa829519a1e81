#pragma once
// A data file's text held for reading: a regular file of 1 MiB or more is mapped read-only
// (the page cache's pages: no copy, no zeroed memory to fill; a 150 MB catalog was 0.3 s of
// copying and page faults), anything else (stdin, a small file, a text already in memory) is
// held in a string. Another program truncating a mapped file while it is read ends the run
// with one line and exit 3 (SIGBUS handled).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace gpusel {

// Error(data) with the message reading `path` would give when it is not a readable regular
// file ("-", stdin, passes); nothing is opened, so a FIFO is named, never waited on.
void check_input_file(const std::string& path);

class InputText {
 public:
  explicit InputText(std::string text) : text_(std::move(text)), view_(text_) {}
  InputText(const InputText&) = delete;
  InputText& operator=(const InputText&) = delete;
  ~InputText();

  std::string_view view() const { return view_; }
  // Gives back the memory of the whole pages inside [begin, end) of view(). A later read of
  // those bytes sees them again when rereadable() (a mapped file's pages come back from the
  // file), unspecified bytes otherwise.
  void release(std::size_t begin, std::size_t end) const;
  bool rereadable() const { return map_ != nullptr; }

  // The file at `path` read as read_file reads it (same checks, same messages, "-" for stdin).
  static std::shared_ptr<const InputText> read(const std::string& path);

 private:
  InputText() = default;
  std::string text_;     // stdin, a small file or a given text
  void* map_ = nullptr;  // a regular file's own memory (mmap), when it has it
  std::size_t map_size_ = 0;
  std::string_view view_;
};

}  // namespace gpusel
