#include <cmath>

#include "svg_internal.hpp"

namespace gpusel {

namespace {

// Length of the UTF-8 sequence starting with `c`, or 0 when `c` cannot start one.
int utf8_length(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return 2;
  if (c >= 0xE0 && c <= 0xEF) return 3;
  if (c >= 0xF0 && c <= 0xF4) return 4;
  return 0;
}

bool valid_sequence(std::string_view s, std::size_t i, int n) {
  if (i + static_cast<std::size_t>(n) > s.size()) return false;
  for (int k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
  const auto c0 = static_cast<unsigned char>(s[i]), c1 = static_cast<unsigned char>(s[i + 1]);
  if (n == 3 && c0 == 0xE0 && c1 < 0xA0) return false;   // overlong
  if (n == 3 && c0 == 0xED && c1 >= 0xA0) return false;  // surrogates
  if (n == 4 && c0 == 0xF0 && c1 < 0x90) return false;   // overlong
  if (n == 4 && c0 == 0xF4 && c1 >= 0x90) return false;  // beyond U+10FFFF
  return true;
}

}  // namespace

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const int n = utf8_length(c);
    if (n == 0 || (n > 1 && !valid_sequence(s, i, n))) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(s.substr(i, static_cast<std::size_t>(n)));
      i += static_cast<std::size_t>(n);
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (c >= 0x20 || c == '\t' || c == '\n')
          out += static_cast<char>(c);
        else if (c == '\r')
          out += ' ';
    }
    ++i;
  }
  return out;
}

std::string grouped(double v) {
  if (std::abs(v) < 100 && v != std::floor(v)) return fmt::format("{:.1f}", v);
  std::string digits = fmt::format("{:.0f}", std::abs(v));
  std::string out;
  const int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[static_cast<std::size_t>(i)];
  }
  return (v < 0 ? "-" : "") + out;
}

namespace svg_detail {

Svg::Svg(double w, double h, std::string_view title, bool standalone) {
  if (standalone) out_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out_ += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" font-family=\"sans-serif\">\n"
      "<title>{}</title>\n<style>{}</style>\n"
      "<rect x=\"0\" y=\"0\" width=\"{:.0f}\" height=\"{:.0f}\" class=\"bg\"/>\n",
      w, h, w, h, xml_escape(title), style(), w, h);
}

void Svg::text(double x, double y, std::string_view s, std::string_view cls,
               std::string_view anchor, std::string_view extra) {
  out_ +=
      fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"{}\" text-anchor=\"{}\"{}{}>{}</text>\n",
                  x, y, cls, anchor, extra.empty() ? "" : " ", extra, xml_escape(s));
}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view cls) {
  out_ +=
      fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"{}\"/>\n",
                  x1, y1, x2, y2, cls);
}

void Svg::rect(double x, double y, double w, double h, std::string_view cls,
               std::string_view tooltip) {
  out_ +=
      fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" class=\"{}\"",
                  x, y, w, h, cls);
  out_ += tooltip.empty() ? "/>\n" : "><title>" + xml_escape(tooltip) + "</title></rect>\n";
}

void Svg::circle(double x, double y, double r, std::string_view cls, std::string_view tooltip) {
  out_ +=
      fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" class=\"{}\"", x, y, r, cls);
  out_ += tooltip.empty() ? "/>\n" : "><title>" + xml_escape(tooltip) + "</title></circle>\n";
}

void Svg::polyline(const std::vector<std::pair<double, double>>& pts, std::string_view cls) {
  std::string p;
  for (const auto& [x, y] : pts) p += fmt::format("{}{:.1f},{:.1f}", p.empty() ? "" : " ", x, y);
  out_ += fmt::format("<polyline points=\"{}\" class=\"{}\"/>\n", p, cls);
}

std::string Svg::finish() { return out_ + "</svg>\n"; }

double text_width(std::string_view s, double font_px) {
  std::size_t chars = 0;
  for (char c : s) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return static_cast<double>(chars) * font_px * 0.56;
}

std::string_view style() {
  return ".bg{fill:#ffffff}"
         ".title{font-size:17px;font-weight:bold;fill:#1a1a1a}"
         ".sub{font-size:12px;fill:#555555}"
         ".tick{font-size:11px;fill:#444444}"
         ".axis-title{font-size:12px;fill:#222222}"
         ".grid{stroke:#e6e6e6;stroke-width:1}"
         ".axis{stroke:#888888;stroke-width:1}"
         ".pt{fill:#8a96a3;fill-opacity:0.75}"
         ".pt-over{fill:#8a96a3;fill-opacity:0.3}"
         ".front{fill:#1f6fb2;stroke:#ffffff;stroke-width:1}"
         ".front-line{fill:none;stroke:#1f6fb2;stroke-width:2}"
         ".pick{fill:none;stroke:#d9480f;stroke-width:2.5}"
         ".pick-label{font-size:11px;font-weight:bold;fill:#d9480f}"
         ".label{font-size:11px;fill:#1f4e79}"
         ".budget{stroke:#c92a2a;stroke-width:1.5;stroke-dasharray:6 4}"
         ".budget-label{font-size:11px;fill:#c92a2a}"
         ".over{fill:#c92a2a;fill-opacity:0.05}"
         ".panel-head{font-size:12px;font-weight:bold;fill:#222222}"
         ".panel{font-size:11px;fill:#333333}"
         ".bar{fill:#1f6fb2}"
         ".value{font-size:11px;fill:#333333}"
         ".note{font-size:11px;fill:#666666}";
}

double scale(const Axis& a, double v, double from, double to) {
  double t = 0;
  if (a.log)
    t = (std::log10(std::max(v, a.min)) - std::log10(a.min)) /
        (std::log10(a.max) - std::log10(a.min));
  else
    t = (v - a.min) / (a.max - a.min);
  return from + t * (to - from);
}

std::string tick_label(double v) {
  if (v >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (v >= 1e4) return fmt::format("{:g}k", v / 1e3);
  if (v == std::floor(v)) return grouped(v);
  return fmt::format("{:g}", v);
}

}  // namespace svg_detail

}  // namespace gpusel
