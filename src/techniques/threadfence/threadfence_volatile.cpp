// Part volatile: volatile makes every access reach memory and orders nothing; a wait on a plain
// load may never see the flag.
#include "core/report/text_format.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"
#include "techniques/threadfence/threadfence_litmus_table.hpp"

namespace cudasync::threadfence {

report::Section volatile_section(const std::vector<LitmusRow>& rows, bool gpu_run) {
  report::Section s("volatile", say("volatile.title"));
  s.paragraph(say("volatile.about"));
  s.paragraph(say("volatile.about-rows"));
  TableOptions opt;
  opt.label = true;
  opt.access = true;
  s.add(litmus_table(say("volatile.table-title"), rows, gpu_run, opt));
  for (const auto& r : rows)
    if (r.timeouts_expected)
      s.note(say("volatile.plain-wait-note",
                 {{"budget", report::format_value(budget_ms(r.budget_ns), report::Format::ms, true)}}));
  add_litmus_checks(s, rows, gpu_run, say("counts-need-gpu"));
  return s;
}

report::Section volatile_part(Run& run) {
  struct Case {
    const char* label;  // a key of the lesson's catalog
    Test test;
    Fence fence;
    Access access;
    bool weak_wait;
  };
  const Case cases[] = {
      {"volatile.case-mp-plain-wait", Test::mp, Fence::none, Access::plain, true},
      {"volatile.case-mp-volatile-wait", Test::mp, Fence::none, Access::plain, false},
      {"volatile.case-mp-all-volatile", Test::mp, Fence::none, Access::vol, false},
      {"volatile.case-sb-all-volatile", Test::sb, Fence::none, Access::vol, false},
      {"volatile.case-lb-all-volatile", Test::lb, Fence::none, Access::vol, false},
      {"volatile.case-sb-fence", Test::sb, Fence::device, Access::vol, false},
      {"volatile.case-sb-release-acquire", Test::sb, Fence::rel_acq, Access::vol, false},
  };
  std::vector<LitmusRow> rows;
  for (const auto& c : cases) {
    LitmusSpec s;
    s.test = c.test;
    s.fence[0] = s.fence[1] = c.fence;
    s.access = c.access;
    s.weak_wait = c.weak_wait;
    // The wait on a plain load runs one round: a wait that gives up stops its thread.
    LitmusRow row = make_row(s, c.weak_wait ? 1 : run.iterations, c.weak_wait ? kPlainWaitBudgetNs : kWaitBudgetNs);
    row.label = say(c.label);
    row.timeouts_expected = c.weak_wait;
    rows.push_back(std::move(row));
  }
  run_rows(rows, run.ctx.gpu);
  return volatile_section(rows, run.ctx.gpu);
}

}  // namespace cudasync::threadfence
