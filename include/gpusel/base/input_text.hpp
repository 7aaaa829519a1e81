#pragma once
// A data file's text held for reading: a regular file is read straight into memory of its own
// (no second copy through a buffer; for a large file, 2 MiB pages where the system gives them,
// so that a 150 MB catalog costs tens of page faults instead of tens of thousands), anything
// else (stdin, a text already in memory) in a string.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace gpusel {

class InputText {
 public:
  explicit InputText(std::string text) : text_(std::move(text)), view_(text_) {}
  InputText(const InputText&) = delete;
  InputText& operator=(const InputText&) = delete;
  ~InputText();

  std::string_view view() const { return view_; }
  // Gives back the memory of the whole pages inside [begin, end) of view(): the caller reads
  // none of those bytes again (a later read sees unspecified bytes).
  void release(std::size_t begin, std::size_t end) const;

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
