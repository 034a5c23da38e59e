#pragma once
// Prints a Report for a person at a terminal: aligned tables, 32-lane tables folded to fit the
// width, colour for lanes that are masked out or kept their own value (when colour is on).
#include <iosfwd>
#include <string>

#include "core/report/report.hpp"

namespace cudasync::report {

struct TextStyle {
  int width = 80;      // columns available; lane tables fold to fit
  bool color = false;  // ANSI colours
};

void render_text(const Report& report, const TextStyle& style, std::ostream& out);

}  // namespace cudasync::report
