// The deterministic form of a Pattern (pattern.hpp): the subset construction over the Pike
// VM's program, done once when a schema is read. A schema check runs a pattern on every id,
// code and date of every record; the VM's thread lists cost ~250 instructions a string where
// the table costs a few per byte. The answer is the VM's by construction: a state is the set
// of byte tests the VM's threads wait at (its "kernel"), and the VM's own closure rules
// (anchors, the new thread an unanchored search starts at every position) make the next one.
#include <algorithm>
#include <map>

#include "json/pattern.hpp"

namespace gpusel::json_detail {

namespace {
// Past these the automaton is not worth its table (a long {n,m} count): the VM runs instead.
constexpr std::size_t kMaxStates = 512;
constexpr std::size_t kMaxWork = 4'000'000;  // closure steps spent building
}  // namespace

void Pattern::closure(const std::vector<int>& seeds, bool at_start, bool at_end,
                      std::vector<int>& out) const {
  out.clear();
  std::vector<char> seen(prog_.size(), 0);
  std::vector<int> stack(seeds.rbegin(), seeds.rend());
  follow(
      stack, at_start, at_end,
      [&](int pc) {
        char& mark = seen[static_cast<std::size_t>(pc)];
        return mark ? false : (mark = 1, true);
      },
      out);
  std::sort(out.begin(), out.end());
}

class DfaBuilder {
 public:
  explicit DfaBuilder(Pattern& p) : p_(p) {}

  bool build() {
    classify();
    anchored_ = !p_.prog_.empty() && p_.prog_.front().op == Pattern::Op::begin;
    state_of({0}, true);  // state 0: position 0, where '^' holds
    for (std::size_t s = 0; s < kernels_.size(); ++s)
      if (!expand(s)) return false;
    return true;
  }

 private:
  Pattern& p_;
  bool anchored_ = false;
  std::vector<std::pair<std::vector<int>, bool>> kernels_;  // (kernel, at the start) per state
  std::map<std::pair<std::vector<int>, bool>, int> ids_;
  std::vector<std::uint8_t> representative_;  // one byte of each class
  std::size_t work_ = 0;

  bool matches(const std::vector<int>& list) const {
    return std::any_of(list.begin(), list.end(), [&](int pc) {
      return p_.prog_[static_cast<std::size_t>(pc)].op == Pattern::Op::match;
    });
  }

  // Bytes that every set treats alike go to one class: a handful instead of 256 columns.
  void classify() {
    std::map<std::vector<bool>, int> seen;
    for (int b = 0; b < 256; ++b) {
      std::vector<bool> key;
      for (const auto& set : p_.sets_) key.push_back(set.test(static_cast<std::size_t>(b)));
      auto [it, fresh] = seen.try_emplace(key, static_cast<int>(seen.size()));
      if (fresh) representative_.push_back(static_cast<std::uint8_t>(b));
      p_.dfa_.byte_class[static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(it->second);
    }
    p_.dfa_.classes = static_cast<int>(seen.size());
  }

  int state_of(std::vector<int> kernel, bool start) {
    auto key = std::make_pair(std::move(kernel), start);
    if (auto it = ids_.find(key); it != ids_.end()) return it->second;
    const int id = static_cast<int>(kernels_.size());
    ids_.emplace(key, id);
    kernels_.push_back(std::move(key));
    return id;
  }

  // The VM at a position inside the text (or at its end) with these threads waiting.
  std::vector<int> threads(std::size_t s, bool at_end) {
    std::vector<int> seeds = kernels_[s].first, out;
    const bool start = kernels_[s].second;
    if (start || !anchored_) seeds.push_back(0);  // as the VM adds a thread at pc 0
    p_.closure(seeds, start, at_end, out);
    work_ += out.size() + seeds.size();
    return out;
  }

  bool expand(std::size_t s) {
    if (kernels_.size() > kMaxStates || work_ > kMaxWork) return false;
    auto& dfa = p_.dfa_;
    const std::vector<int> mid = threads(s, false);
    dfa.match_before_end.push_back(matches(mid));
    dfa.match_at_end.push_back(matches(threads(s, true)));
    for (int c = 0; c < dfa.classes; ++c) {
      std::vector<int> kernel;
      for (int pc : mid) {
        const auto& in = p_.prog_[static_cast<std::size_t>(pc)];
        if (in.op == Pattern::Op::byte_set &&
            p_.sets_[static_cast<std::size_t>(in.set)].test(representative_[c]))
          kernel.push_back(pc + 1);
      }
      work_ += mid.size();
      // An anchored search with no thread left has failed: the VM stops there too.
      dfa.next.push_back(kernel.empty() && anchored_ ? Pattern::kDead
                                                     : state_of(std::move(kernel), false));
    }
    return true;
  }
};

void Pattern::build_dfa() {
  if (!DfaBuilder(*this).build()) dfa_ = Dfa{};  // too large: the VM runs instead
}

bool Pattern::run_dfa(std::string_view text) const {
  std::int32_t s = 0;
  const auto classes = static_cast<std::size_t>(dfa_.classes);
  for (char ch : text) {
    if (dfa_.match_before_end[static_cast<std::size_t>(s)]) return true;
    s = dfa_.next[static_cast<std::size_t>(s) * classes +
                  dfa_.byte_class[static_cast<unsigned char>(ch)]];
    if (s == kDead) return false;
  }
  return dfa_.match_at_end[static_cast<std::size_t>(s)] != 0;
}

}  // namespace gpusel::json_detail
