#pragma once
// The Report for other tools, beside JSON (nvbench and hyperfine export the same two ways):
//   Markdown: the report as a Markdown document, every table whole (GitHub pipe tables, numbers
//     formatted and right-aligned), facts and measurements as tables, checks as a list; a
//     document (a lesson's text) as written.
//   CSV (RFC 4180): one row per table cell, fact, measurement statistic and check, long format:
//     kind,section,table,row,column,title,value,format,unit,needs_gpu,mark
//     Values are raw (numbers as JSON writes them, never grouped), so a spreadsheet or pandas
//     reads numbers; NeedsGpu and Undefined are empty, needs_gpu says which.
#include <iosfwd>
#include <string>

#include "core/report/report.hpp"

namespace cudasync::report {

void render_markdown(const Report& report, std::ostream& out);
void render_csv(const Report& report, std::ostream& out);

// One CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s);

}  // namespace cudasync::report
