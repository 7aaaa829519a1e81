// render_table: aligned columns that fit the display width. Columns with a `drop` priority
// go first (highest first), then `wrap` columns wrap onto more lines; a line under the table
// names what was left out so nobody mistakes a narrow table for the whole answer.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <span>
#include <utility>

#include "cli/render.hpp"
#include "gpusel/i18n/i18n.hpp"

namespace gpusel::cli {
namespace {

constexpr std::size_t gap = 2;        // spaces between columns
constexpr std::size_t min_wrap = 16;  // a wrapped column keeps at least this much
constexpr std::size_t kRowsPerFlush = 1024;

std::string pad(const std::string& s, std::size_t w, bool right) {
  const std::size_t have = display_width(s);
  std::string fill(w > have ? w - have : 0, ' ');
  return right ? fill + s : s + fill;
}

// Bytes of the longest prefix of `s` that takes at most `cols` columns (at least one code
// point, so a wide character in a one-column space still makes progress).
std::size_t prefix_bytes(const std::string& s, std::size_t cols) {
  std::size_t i = 0;
  for (std::size_t used = 0; i < s.size();) {
    std::size_t next = i + 1;
    while (next < s.size() && (static_cast<unsigned char>(s[next]) & 0xC0) == 0x80) ++next;
    used += display_width(std::string_view(s).substr(i, next - i));
    if (used > cols && i > 0) break;
    i = next;
  }
  return i;
}

// Splits at spaces into lines of at most `w` columns; a longer word is cut.
std::vector<std::string> wrap_text(const std::string& s, std::size_t w) {
  std::vector<std::string> lines;
  std::string cur;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const std::size_t end = std::min(s.find(' ', pos), s.size());
    std::string word = s.substr(pos, end - pos);
    pos = end + 1;
    while (display_width(word) > w) {
      if (!cur.empty()) lines.push_back(std::exchange(cur, ""));
      const std::size_t cut = prefix_bytes(word, w);
      lines.push_back(word.substr(0, cut));
      word.erase(0, cut);
    }
    if (word.empty()) continue;
    if (cur.empty())
      cur = word;
    else if (display_width(cur) + 1 + display_width(word) <= w)
      cur += " " + word;
    else
      lines.push_back(std::exchange(cur, word));
  }
  lines.push_back(cur);
  return lines;
}

struct Layout {
  std::vector<std::size_t> width;  // per column; 0 = dropped
  std::vector<std::string> dropped;
};

std::size_t total(const std::vector<std::size_t>& w) {
  std::size_t n = 0, cols = 0;
  for (std::size_t x : w)
    if (x) n += x, ++cols;
  return cols ? n + gap * (cols - 1) : 0;
}

// A cell by reference, to the table's own text where it is safe to show as is, else to its
// escaped copy (a 100,000-row table is not copied whole to be shown), with its width measured
// once: fitting, wrapping and padding each measured every cell again.
struct Cell {
  const std::string* text;
  std::size_t width;
};
using Cells = std::span<const Cell>;

Layout fit(const Table& t, const std::vector<Cell>& cells, std::size_t limit) {
  const std::size_t n = t.columns.size();
  Layout l;
  l.width.assign(n, 0);
  for (std::size_t c = 0; c < n; ++c)
    l.width[c] = std::max<std::size_t>(1, display_width(t.columns[c].header));
  for (std::size_t row = 0; n && row < cells.size(); row += n)
    for (std::size_t c = 0; c < n; ++c) l.width[c] = std::max(l.width[c], cells[row + c].width);
  if (limit == 0) return l;
  while (total(l.width) > limit) {
    std::size_t pick = n;
    for (std::size_t c = 0; c < n; ++c)
      if (l.width[c] && t.columns[c].drop > 0 &&
          (pick == n || t.columns[c].drop >= t.columns[pick].drop))
        pick = c;
    if (pick == n) break;
    l.width[pick] = 0;
    l.dropped.insert(l.dropped.begin(), t.columns[pick].header);
  }
  for (std::size_t c = 0; c < n && total(l.width) > limit; ++c) {
    if (!l.width[c] || !t.columns[c].wrap) continue;
    const std::size_t others = total(l.width) - l.width[c];
    const std::size_t room = limit > others ? limit - others : 0;
    l.width[c] =
        std::min(l.width[c], std::max({room, min_wrap, display_width(t.columns[c].header)}));
  }
  return l;
}

Tone tone_at(const Table& t, std::size_t r, std::size_t c) {
  return r < t.tones.size() && c < t.tones[r].size() ? t.tones[r][c] : Tone::plain;
}

// One cell of a line: padded to `width`, the text (not the padding) coloured, so alignment
// does not depend on the terminal.
void append_cell(std::string& s, const std::string& text, std::size_t have, std::size_t width,
                 bool right, Tone tone) {
  const std::size_t fill = width > have ? width - have : 0;
  if (!display().colour || tone == Tone::plain || text.empty()) {  // paint() leaves it as is
    if (right) s.append(fill, ' ');
    s += text;
    if (!right) s.append(fill, ' ');
    return;
  }
  const std::string cell = pad(text, width, right);
  const std::size_t at = cell.find(text);
  s += cell.substr(0, at) + paint(text, tone) + cell.substr(at + text.size());
}

// One table row, as many lines as its tallest wrapped cell, appended to `out`. Cells are
// written in place: a 100,000-row table made a few strings per cell before.
void row_lines(const Table& t, const Layout& l, Cells row, std::size_t r, std::string& out) {
  std::vector<std::vector<std::string>> parts;  // the wrapped cells' lines, when a cell wraps
  std::size_t height = 1;
  for (std::size_t c = 0; c < row.size(); ++c) {
    if (!l.width[c] || !t.columns[c].wrap || row[c].width <= l.width[c]) continue;
    parts.resize(row.size());
    parts[c] = wrap_text(*row[c].text, l.width[c]);
    height = std::max(height, parts[c].size());
  }
  static const std::string none;
  for (std::size_t k = 0; k < height; ++k) {
    bool first = true;
    const std::size_t line = out.size();
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (!l.width[c]) continue;
      const bool wrapped = !parts.empty() && !parts[c].empty();
      const std::string& text = wrapped  ? (k < parts[c].size() ? parts[c][k] : none)
                                : k == 0 ? *row[c].text
                                         : none;
      if (!first) out.append(gap, ' ');
      append_cell(out, text, wrapped || k > 0 ? display_width(text) : row[c].width, l.width[c],
                  t.columns[c].right, r == SIZE_MAX ? Tone::plain : tone_at(t, r, c));
      first = false;
    }
    while (out.size() > line && out.back() == ' ') out.pop_back();
    out += '\n';
  }
}

}  // namespace

std::string render_table(const Table& t) {
  std::string out;
  render_table_to(out, t);
  return out;
}

void render_table_to(std::string& out, const Table& t,
                     const std::function<void(std::string&)>& flush) {
  static const std::string none;
  const std::size_t n = t.columns.size();
  std::deque<std::string> escaped;  // the cells safe_cell changes (a deque keeps them in place)
  std::vector<Cell> cells;          // row-major, n per row
  cells.reserve(t.rows.size() * n);
  for (const auto& row : t.rows)
    for (std::size_t c = 0; c < n; ++c) {
      const std::string* cell = c < row.size() ? &row[c] : &none;
      if (printable_ascii(*cell)) {  // most cells are: one column a byte, no copy made
        cells.push_back({cell, cell->size()});
        continue;
      }
      std::string safe = safe_cell(*cell);
      if (safe != *cell) cell = &escaped.emplace_back(std::move(safe));
      cells.push_back({cell, display_width(*cell)});
    }
  Table head{t.columns, {}, t.tones};  // the rows are in `cells`: not copied a second time
  // Headers are msgids (marked N_ where they are written): translated here, for people only.
  for (auto& col : head.columns) col.header = safe_cell(tr(col.header));
  const Layout l = fit(head, cells, display().width);
  std::vector<std::string> rule;
  std::vector<Cell> header_cells, rule_cells;
  rule.reserve(n);
  for (std::size_t c = 0; c < n; ++c) {
    rule.push_back(std::string(std::max<std::size_t>(l.width[c], 1), '-'));
    header_cells.push_back({&head.columns[c].header, display_width(head.columns[c].header)});
    rule_cells.push_back({&rule[c], rule[c].size()});
  }
  row_lines(head, l, header_cells, SIZE_MAX, out);
  row_lines(head, l, rule_cells, SIZE_MAX, out);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    row_lines(head, l, Cells(cells).subspan(r * n, n), r, out);
    if (flush && r % kRowsPerFlush == kRowsPerFlush - 1) flush(out);
  }
  if (!l.dropped.empty()) {
    std::string names;
    for (const auto& d : l.dropped) names += (names.empty() ? "" : tr(", ")) + d;
    const std::string note =
        trf("({} hidden to fit {} columns; --wide shows all)", names, display().width);
    for (const auto& line : wrap_text(note, display().width)) out += line + "\n";
  }
}

}  // namespace gpusel::cli
