#pragma once
// Charts as SVG: self-contained (no scripts, no external fonts or images; the generic
// sans-serif family), every text from data escaped, so a name from a user's catalog cannot
// inject markup. `standalone` adds the XML declaration for a .svg file; without it the
// element can be placed inline in an HTML page.
#include <string>
#include <string_view>

#include "gpusel/report/plot.hpp"

namespace gpusel {

std::string render_svg(const PricePlot& plot, bool standalone = true);
std::string render_svg(const SpecChart& chart, bool standalone = true);

// Text for XML and HTML: & < > " ' as entities, control characters XML 1.0 forbids dropped,
// bytes that are not UTF-8 replaced by U+FFFD.
std::string xml_escape(std::string_view text);

// 12345.6 -> "12,346"; 1234567 -> "1,234,567"; below 100 one decimal ("56.7").
std::string grouped(double v);

}  // namespace gpusel
