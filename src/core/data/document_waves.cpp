#include "document_waves.hpp"

#include "gpusel/base/threads.hpp"

namespace gpusel::detail {

void prepare_wave(std::size_t begin, std::size_t end,
                  const std::function<Prepared(std::size_t, json_detail::FlatTree&)>& prepare,
                  std::vector<json_detail::FlatTree>& trees, std::vector<Prepared>& out,
                  const std::function<void()>& alongside) {
  // Chunks small enough that a thread held up by one long record leaves little to wait for,
  // large enough that claiming one costs nothing next to reading 64 records.
  constexpr std::size_t kChunk = 64;
  out.assign(end - begin, Prepared{});
  for_chunks(
      end - begin, kChunk, static_cast<unsigned>(trees.size()),
      [&](unsigned t, std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i) out[i] = prepare(begin + i, trees[t]);
      },
      alongside);
}

}  // namespace gpusel::detail
