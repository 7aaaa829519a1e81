#pragma once
// Placing a document's findings (file:line:col) once its pass is over (document_locate.cpp;
// not a public header).
#include <string_view>

#include "gpusel/data/validate.hpp"
#include "json/json_scan.hpp"

namespace gpusel::detail {

// Gives every diagnostic of `report` its position, cuts and escapes pointers and messages for
// display, and sorts them in source order. Findings inside the records of `list` are located
// in their record's text alone; `kept` is where the text still held starts (PassOptions::release).
void locate(std::string_view text, ValidationReport& report, const json_detail::Outline::List* list,
            const SourcePos& kept = {1, 1, 0});

}  // namespace gpusel::detail
