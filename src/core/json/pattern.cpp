#include "json/pattern.hpp"

#include <memory>

namespace gpusel::json_detail {

// The pattern as a tree, then as a program for the Pike VM. Repetition counts are expanded
// into copies, so the program is capped to keep a schema from asking for a huge one.
namespace {

constexpr std::size_t kMaxProgram = 20000;
constexpr int kMaxRepeat = 1000;

struct Node {
  enum Kind { set, begin, end, cat, alt, repeat };
  explicit Node(Kind k) : kind(k) {}
  Kind kind;
  std::bitset<256> bytes;
  std::vector<Node> kids;
  int min = 0, max = 0;  // repeat; max < 0: unbounded
};

std::bitset<256> range(int lo, int hi) {
  std::bitset<256> b;
  for (int c = lo; c <= hi; ++c) b.set(static_cast<std::size_t>(c));
  return b;
}

std::bitset<256> digit() { return range('0', '9'); }
std::bitset<256> word() {
  return range('0', '9') | range('a', 'z') | range('A', 'Z') | range('_', '_');
}
std::bitset<256> space() { return range('\t', '\r') | range(' ', ' '); }

}  // namespace

class PatternCompiler {
 public:
  explicit PatternCompiler(std::string_view src) : src_(src) {}

  void compile(Pattern& out) {
    Node root = alternation();
    if (pos_ != src_.size()) fail("unbalanced ')'");
    out_ = &out;
    emit(root);
    add(Pattern::Inst(Pattern::Op::match));
  }

 private:
  std::string_view src_;
  std::size_t pos_ = 0;
  Pattern* out_ = nullptr;

  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument(why + " at offset " + std::to_string(pos_));
  }
  bool at_end() const { return pos_ >= src_.size(); }
  char peek() const { return at_end() ? '\0' : src_[pos_]; }

  Node alternation() {
    Node alt(Node::alt);
    alt.kids.push_back(sequence());
    while (peek() == '|') ++pos_, alt.kids.push_back(sequence());
    return alt.kids.size() == 1 ? std::move(alt.kids.front()) : alt;
  }

  Node sequence() {
    Node seq(Node::cat);
    while (!at_end() && peek() != '|' && peek() != ')') seq.kids.push_back(repeated(atom()));
    return seq;
  }

  int number() {
    int n = 0;
    if (!(peek() >= '0' && peek() <= '9')) fail("expected a number in {}");
    while (peek() >= '0' && peek() <= '9') {
      n = n * 10 + (src_[pos_++] - '0');
      if (n > kMaxRepeat) fail("repetition count above " + std::to_string(kMaxRepeat));
    }
    return n;
  }

  Node repeated(Node atom) {
    int min = 0, max = 0;
    switch (peek()) {
      case '*':
        min = 0, max = -1, ++pos_;
        break;
      case '+':
        min = 1, max = -1, ++pos_;
        break;
      case '?':
        min = 0, max = 1, ++pos_;
        break;
      case '{':
        ++pos_, min = max = number();
        if (peek() == ',') ++pos_, max = peek() == '}' ? -1 : number();
        if (peek() != '}') fail("expected '}'");
        if (max >= 0 && max < min) fail("{n,m} with m < n");
        ++pos_;
        break;
      default:
        return atom;
    }
    if (atom.kind == Node::begin || atom.kind == Node::end) fail("quantifier after an anchor");
    if (peek() == '?') ++pos_;  // lazy: same answer to "does it match"
    Node r(Node::repeat);
    r.min = min, r.max = max;
    r.kids.push_back(std::move(atom));
    return r;
  }

  Node atom() {
    const char c = src_[pos_++];
    Node n(Node::set);
    switch (c) {
      case '^':
        return Node(Node::begin);
      case '$':
        return Node(Node::end);
      case '.':
        n.bytes = ~range('\n', '\n') & ~range('\r', '\r');
        return n;
      case '(':
        return group();
      case '[':
        n.bytes = byte_class();
        return n;
      case '\\':
        n.bytes = escape();
        return n;
      case '*':
      case '+':
      case '?':
      case '{':
        fail("quantifier without anything to repeat");
      case ')':
        fail("unbalanced ')'");
      default:
        n.bytes.set(static_cast<unsigned char>(c));
        return n;
    }
  }

  Node group() {
    if (src_.substr(pos_, 2) == "?:") {
      pos_ += 2;
    } else if (peek() == '?') {
      fail("lookaround and named groups are not supported");
    }
    Node inner = alternation();
    if (peek() != ')') fail("missing ')'");
    ++pos_;
    return inner;
  }

  std::bitset<256> escape() {
    if (at_end()) fail("'\\' at the end");
    const char c = src_[pos_++];
    switch (c) {
      case 'd':
        return digit();
      case 'D':
        return ~digit();
      case 'w':
        return word();
      case 'W':
        return ~word();
      case 's':
        return space();
      case 'S':
        return ~space();
      case 'n':
        return range('\n', '\n');
      case 't':
        return range('\t', '\t');
      case 'r':
        return range('\r', '\r');
      case 'f':
        return range('\f', '\f');
      case 'v':
        return range('\v', '\v');
      default:
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
          fail(std::string("unsupported escape '\\") + c + "'");
        return range(static_cast<unsigned char>(c), static_cast<unsigned char>(c));
    }
  }

  // [...] after the '['; ranges like a-z, escapes inside, a leading '^' negates.
  std::bitset<256> byte_class() {
    std::bitset<256> set;
    const bool negate = peek() == '^';
    if (negate) ++pos_;
    bool first = true;
    while (!at_end() && (peek() != ']' || first)) {
      first = false;
      std::bitset<256> item;
      int lo = -1;
      if (peek() == '\\') {
        ++pos_;
        item = escape();
        if (item.count() == 1) lo = first_of(item);  // an escaped byte may start a range
      } else {
        lo = static_cast<unsigned char>(src_[pos_++]);
        item.set(static_cast<std::size_t>(lo));
      }
      if (peek() == '-' && pos_ + 1 < src_.size() && src_[pos_ + 1] != ']' && lo >= 0) {
        ++pos_;
        int hi = static_cast<unsigned char>(src_[pos_++]);
        if (hi == '\\') fail("escape as a range end");
        if (hi < lo) fail("range out of order");
        item = range(lo, hi);
      }
      set |= item;
    }
    if (at_end()) fail("missing ']'");
    ++pos_;
    return negate ? ~set : set;
  }

  static int first_of(const std::bitset<256>& b) {
    for (int i = 0; i < 256; ++i)
      if (b.test(static_cast<std::size_t>(i))) return i;
    return -1;
  }

  int add(const Pattern::Inst& inst) {
    if (out_->prog_.size() >= kMaxProgram) fail("pattern too large");
    out_->prog_.push_back(inst);
    return static_cast<int>(out_->prog_.size()) - 1;
  }
  int here() const { return static_cast<int>(out_->prog_.size()); }

  void emit(const Node& n) {
    switch (n.kind) {
      case Node::set:
        out_->sets_.push_back(n.bytes);
        add(Pattern::Inst(Pattern::Op::byte_set, 0, 0, static_cast<int>(out_->sets_.size()) - 1));
        return;
      case Node::begin:
        add(Pattern::Inst(Pattern::Op::begin));
        return;
      case Node::end:
        add(Pattern::Inst(Pattern::Op::end));
        return;
      case Node::cat:
        for (const auto& k : n.kids) emit(k);
        return;
      case Node::alt:
        return emit_alt(n, 0);
      case Node::repeat:
        return emit_repeat(n);
    }
  }

  void emit_alt(const Node& n, std::size_t i) {
    if (i + 1 == n.kids.size()) return emit(n.kids[i]);
    const int split = add(Pattern::Inst(Pattern::Op::split));
    out_->prog_[split].x = here();
    emit(n.kids[i]);
    const int jump = add(Pattern::Inst(Pattern::Op::jump));
    out_->prog_[split].y = here();
    emit_alt(n, i + 1);
    out_->prog_[jump].x = here();
  }

  void emit_repeat(const Node& n) {
    for (int i = 0; i < n.min; ++i) emit(n.kids[0]);
    if (n.max < 0) {  // loop: split body, out; body; jump back
      const int split = add(Pattern::Inst(Pattern::Op::split));
      out_->prog_[split].x = here();
      emit(n.kids[0]);
      add(Pattern::Inst(Pattern::Op::jump, split));
      out_->prog_[split].y = here();
      return;
    }
    std::vector<int> splits;
    for (int i = n.min; i < n.max; ++i) {
      splits.push_back(add(Pattern::Inst(Pattern::Op::split)));
      out_->prog_[splits.back()].x = here();
      emit(n.kids[0]);
    }
    for (int s : splits) out_->prog_[s].y = here();
  }
};

Pattern::Pattern(std::string_view source) {
  PatternCompiler(source).compile(*this);
  build_dfa();
}

bool Pattern::search(std::string_view text) const {
  return dfa_.classes ? run_dfa(text) : run_vm(text);
}

bool Pattern::run_vm(std::string_view text) const {
  const std::size_t n = text.size();
  // Scratch lists reused across calls: a schema check runs a pattern on every id and date
  // of every record, and four allocations a call cost more than the matching.
  thread_local std::vector<int> current, next, stack;
  thread_local std::vector<std::size_t> seen;
  current.clear(), next.clear();
  seen.assign(prog_.size(), SIZE_MAX);  // step at which a pc was added
  // A program that opens with '^' can only match from position 0: no thread started later
  // survives its first instruction, so none is started, and a search with no thread left
  // has failed.
  const bool anchored = !prog_.empty() && prog_.front().op == Op::begin;
  // Follows jumps, splits and anchors from `pc` at text position `i`; keeps the byte tests.
  auto add = [&](std::vector<int>& list, int start, std::size_t i, std::size_t step) {
    stack.assign(1, start);
    follow(
        stack, i == 0, i == n,
        [&](int pc) {
          std::size_t& mark = seen[static_cast<std::size_t>(pc)];
          if (mark == step) return false;
          mark = step;
          return true;
        },
        list);
  };
  for (std::size_t i = 0; i <= n; ++i) {
    if (i == 0 || !anchored) add(current, 0, i, i);  // unanchored: a match may start anywhere
    if (anchored && current.empty()) return false;   // every thread has died
    next.clear();
    for (int pc : current) {
      const Inst& in = prog_[static_cast<std::size_t>(pc)];
      if (in.op == Op::match) return true;
      if (i < n &&
          sets_[static_cast<std::size_t>(in.set)].test(static_cast<unsigned char>(text[i])))
        add(next, pc + 1, i + 1, i + 1);
    }
    current.swap(next);
  }
  return false;
}

}  // namespace gpusel::json_detail
