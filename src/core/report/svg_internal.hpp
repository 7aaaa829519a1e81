#pragma once
// A minimal SVG writer: elements appended in order, attribute numbers with one decimal,
// every text escaped.
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "gpusel/report/svg.hpp"

namespace gpusel::svg_detail {

class Svg {
 public:
  Svg(double width, double height, std::string_view title, bool standalone);
  // <text>: `anchor` start|middle|end; `cls` one of the classes in the style block.
  void text(double x, double y, std::string_view s, std::string_view cls,
            std::string_view anchor = "start", std::string_view extra = "");
  void line(double x1, double y1, double x2, double y2, std::string_view cls);
  void rect(double x, double y, double w, double h, std::string_view cls,
            std::string_view tooltip = "");
  void circle(double x, double y, double r, std::string_view cls, std::string_view tooltip = "");
  void polyline(const std::vector<std::pair<double, double>>& pts, std::string_view cls);
  std::string finish();

 private:
  std::string out_;
};

// Width of `s` in pixels at the chart's 11 px label font: an estimate (0.56 em a character),
// enough to keep labels apart.
double text_width(std::string_view s, double font_px = 11);

// The shared stylesheet: colours, fonts (generic families only), line styles.
std::string_view style();

// A value's position on an axis running from `from` to `to` pixels.
double scale(const Axis& a, double v, double from, double to);

// A tick label: "1,000", "20k", "1.5M", "0.5".
std::string tick_label(double v);

}  // namespace gpusel::svg_detail
