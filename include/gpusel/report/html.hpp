#pragma once
// One self-contained HTML page for a recommendation a user can send on: inline CSS, the chart
// inline as SVG, no scripts, no network (nothing is loaded from anywhere; links are plain
// links). Every text is escaped here; the caller gives plain text.
#include <string>
#include <vector>

namespace gpusel {

struct HtmlTable {
  std::vector<std::string> headers;
  std::vector<bool> right;  // per column: numbers align right
  std::vector<std::vector<std::string>> rows;
};

struct HtmlWarning {
  std::string subject;             // "2. 2x rtx-a4500 (nvlink-bridge)"
  std::string text, rule, source;  // source: a URL (linked) or words
};

struct HtmlReport {
  std::string title;                     // the page's title and heading
  std::vector<std::string> question;     // the workload and what was asked, line by line
  std::vector<std::string> assumptions;  // what gpusel chose for the user
  HtmlTable ranking;
  std::vector<std::string> ranking_notes;  // considered/rejected counts, remedies
  std::string plot_svg;                    // from render_svg(..., false): inserted as it is
  std::vector<std::string> plot_notes;
  std::vector<HtmlWarning> warnings;
  HtmlTable rent;  // buy or rent, per ranked configuration (may be empty)
  std::vector<std::string> rent_notes;
  HtmlTable data;         // each dataset and its date
  std::string generated;  // "gpusel 0.1.0, 2026-12-03"
};

std::string render_html(const HtmlReport& report);

}  // namespace gpusel
