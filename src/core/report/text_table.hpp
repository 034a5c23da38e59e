#pragma once
// A table of strings laid out to fit a terminal. In order:
//   1. it fits: one line per row, columns two spaces apart;
//   2. text columns wrap under themselves (each keeps at least 16 columns or its longest word);
//   3. it folds: the key columns (a lane, a step) then as many columns as fit, and the rest in
//      further blocks below, each with the key columns again (Fold::columns); or
//   4. one block of lines per row, "title  value" (Fold::records, or when one column alone is too
//      wide beside the keys).
// Numbers align right and never wrap; every line ends without trailing spaces.
#include <cstddef>
#include <string>
#include <vector>

#include "core/report/report.hpp"

namespace cudasync::report {

struct TextTable {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;  // one string per header
  std::vector<bool> right;                     // per column: align right (numbers)
  std::vector<std::string> paint;              // per row: an ANSI colour for the whole row, or ""
  std::size_t keys = 1;
  Fold fold = Fold::columns;
};

// The table's lines, each starting with `indent` spaces and at most `width` columns wide.
std::vector<std::string> layout_table(const TextTable& t, std::size_t width, std::size_t indent = 2);

}  // namespace cudasync::report
