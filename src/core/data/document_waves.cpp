#include "document_waves.hpp"

#include "gpusel/base/threads.hpp"

namespace gpusel::detail {

void prepare_wave(std::size_t begin, std::size_t end,
                  const std::function<Prepared(std::size_t, json_detail::FlatTree&)>& prepare,
                  std::vector<json_detail::FlatTree>& trees, std::vector<Prepared>& out) {
  out.assign(end - begin, Prepared{});
  for_slices(end - begin, static_cast<unsigned>(trees.size()),
             [&](unsigned t, std::size_t from, std::size_t to) {
               for (std::size_t i = from; i < to; ++i) out[i] = prepare(begin + i, trees[t]);
             });
}

}  // namespace gpusel::detail
