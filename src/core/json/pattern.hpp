#pragma once
// The regular expressions of JSON Schema "pattern" keywords, matched in time linear in the
// text (a Pike VM: every alternative advanced in step, no backtracking), so that a long or
// hostile string in a user's file can neither overflow the stack nor take exponential time
// as std::regex can. Not a public header.
//
// Supported (ECMAScript syntax, matched byte by byte): literals, '.', '^' and '$' (start and
// end of the text), classes [a-z0-9_.-] and [^...], escapes \d \D \w \W \s \S and escaped
// punctuation, groups (...) and (?:...), alternation |, quantifiers * + ? {n} {n,} {n,m}
// (a lazy '?' after them is accepted; it changes no match/no-match answer). Anything else
// (backreferences, lookaround, \b) is refused when the schema is read.
#include <array>
#include <bitset>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpusel::json_detail {

class Pattern {
 public:
  // Throws std::invalid_argument naming what is wrong or unsupported.
  explicit Pattern(std::string_view source);
  // True when the pattern matches somewhere in `text` (JSON Schema patterns are unanchored).
  bool search(std::string_view text) const;

 private:
  enum class Op : std::uint8_t { byte_set, split, jump, begin, end, match };
  struct Inst {
    explicit Inst(Op o, int x_ = 0, int y_ = 0, int set_ = -1) : op(o), x(x_), y(y_), set(set_) {}
    Op op;
    int x, y;  // split: both targets; jump: x
    int set;   // byte_set: index into sets_
  };
  std::vector<Inst> prog_;
  std::vector<std::bitset<256>> sets_;

  // The same program as a deterministic automaton, built when the pattern is compiled
  // (pattern_dfa.cpp): one table lookup per byte where the Pike VM follows every thread.
  // Empty when the program would need too many states; search() then runs the VM.
  struct Dfa {
    std::array<std::uint8_t, 256> byte_class{};  // bytes no set tells apart share a class
    int classes = 0;
    std::vector<std::int32_t> next;  // [state * classes + class]; kDead: no match possible
    std::vector<std::uint8_t> match_before_end, match_at_end;  // per state
  };
  static constexpr std::int32_t kDead = -1;
  Dfa dfa_;
  void build_dfa();
  bool run_dfa(std::string_view text) const;
  bool run_vm(std::string_view text) const;
  // Follows jumps, splits and anchors from `seeds` (at the start and/or the end of the text
  // as told): the byte tests and match instructions reached, each once, sorted.
  void closure(const std::vector<int>& seeds, bool at_start, bool at_end,
               std::vector<int>& out) const;
  // The step both of those share: follows jumps, splits and anchors from the pcs on `stack`,
  // appending each byte test or match reached to `out`; `first(pc)` marks a pc as visited and
  // says whether it was new (the VM marks by step, the automaton's builder by set).
  template <typename First>
  void follow(std::vector<int>& stack, bool at_start, bool at_end, First&& first,
              std::vector<int>& out) const {
    while (!stack.empty()) {
      const int pc = stack.back();
      stack.pop_back();
      if (!first(pc)) continue;
      const Inst& in = prog_[static_cast<std::size_t>(pc)];
      if (in.op == Op::jump) {
        stack.push_back(in.x);
      } else if (in.op == Op::split) {
        stack.push_back(in.y), stack.push_back(in.x);
      } else if (in.op == Op::begin || in.op == Op::end) {
        if (in.op == Op::begin ? at_start : at_end) stack.push_back(pc + 1);
      } else {
        out.push_back(pc);
      }
    }
  }

  friend class PatternCompiler;
  friend class DfaBuilder;
};

}  // namespace gpusel::json_detail
