#pragma once
// The Report as one self-contained HTML page, the third renderer beside text and JSON: inline CSS
// and SVG, no script, no font or image to fetch (a Content-Security-Policy forbids every load), so
// it opens offline and can be mailed or handed in. Every table is an HTML table (lanes-across
// tables transposed as in text); a table with a picture hint (report.hpp: Picture) is drawn
// above it as SVG:
//   shuffle   lanes in width segments, an arrow from each source lane (top) to the lane that
//             received its value (bottom); masked-out lanes crossed, kept-own arrows amber
//   timeline  one bar per block from its arrival to its release, the last arrival marked
//   outcomes  per row, one box per outcome: green if the model allows it, red if not, a bar for
//             how often it appeared (log scale)
//   grid      step by lane: what each lane did at each step, coloured by what kind of thing it did
//   bars      per column, one bar per row, the baseline row's grey and its value dashed across
// Measurements with samples are drawn as bars (median, min-max whisker) beside their table. A
// Markdown document (a lesson's text) is rendered with md4c-html.
#include <iosfwd>
#include <string>

#include "core/report/json_renderer.hpp"
#include "core/report/report.hpp"

namespace cudasync::report {

void render_html(const Report& report, const RunMeta& meta, std::ostream& out);

// The SVG of a table's picture ("" when it has none, or nothing to draw). `uid` keeps the ids of
// its markers apart from other pictures on the page.
std::string picture_svg(const Table& table, const std::string& uid);

// Text safe inside HTML elements and attribute values.
std::string html_escape(const std::string& s);

}  // namespace cudasync::report
