#pragma once
// A lesson run in one screen (section id "overview"): which parts ran on what, each part's verdict
// in a row (its checks passed of all, or why it has none: it needs a GPU, this GPU waived it), the
// sentence to remember from the lesson's text, and what to run next. A default run that shows
// several parts opens with it; `--brief` prints it alone; the tour's stops are built from it.
//
//   report::Section s = parts::summary_section(report, "lock", summaries(lesson), ctx, brief);
#include <string>
#include <vector>

#include "core/report/report.hpp"
#include "core/run_context.hpp"

namespace cudasync::parts {

// The run's part sections are those of `report` whose id is one of `parts`' ids. `brief`: the
// summary is all the run prints (--brief), and says how to see the rest.
report::Section summary_section(const report::Report& report, const std::string& lesson,
                                const std::vector<PartSummary>& parts, const RunContext& ctx, bool brief = false);

// The lesson text's sentence to remember ("**Remember:**") in `lang`; "" when it has none.
std::string remember_sentence(const std::string& lesson, const std::string& lang);

}  // namespace cudasync::parts
