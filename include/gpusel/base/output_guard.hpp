#pragma once
// What no output may carry from input data, whatever its format: the last pass before a text
// is written to stdout, stderr or a file.
#include <string>
#include <string_view>

namespace gpusel {

// How the written text escapes a character: plain text (\xnn), JSON (\unnnn inside its
// strings, the only place data reaches), or SVG/HTML markup (&#n;).
enum class OutputKind { text, json, markup };

// `text` with C1 controls (U+0080-U+009F) and bidirectional overrides and isolates replaced
// (U+FFFD; JSON escapes them), DEL replaced, markup's C0 controls replaced, and every Azure
// Pipelines logging command ("##vso[") disarmed. `line_commands`: also disarm a line that
// starts with a GitHub Actions workflow command ("::") or an Azure formatting command ("##["),
// for every text but one that issues such commands of its own (validate --format github).
std::string guard_output(std::string_view text, OutputKind kind, bool line_commands = true);

}  // namespace gpusel
