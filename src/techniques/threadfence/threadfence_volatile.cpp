// Part volatile: volatile makes every access reach memory and orders nothing; a wait on a plain
// load may never see the flag.
#include "core/report/text_format.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"
#include "techniques/threadfence/threadfence_litmus_table.hpp"

namespace cudasync::threadfence {

report::Section volatile_section(const std::vector<LitmusRow>& rows, bool gpu_run) {
  report::Section s("volatile", "volatile: every access reaches memory, and nothing is ordered");
  s.paragraph(
      "The lock-based barrier of Xiao & Feng 2010 spins on a volatile g_mutex. volatile makes the compiler emit every access as an actual load or store "
      "(CUDA C++ Programming Guide, \"Volatile Qualifier\"); in PTX that is ld.volatile / st.volatile, which the "
      "memory model treats as relaxed accesses at system scope, not ordered with the thread's other accesses. "
      "The model has no caches; that a volatile load is never served by a stale L1 line is what the listing "
      "(LDG.E.STRONG.SYS) and the measurements of the GPUs tested suggest, not a documented rule. Only a fence, "
      "or a release/acquire access, orders.");
  s.paragraph(
      "First row: the consumer waits for the flag with plain loads (ld.global). Nothing obliges a weak load to "
      "ever see another SM's store, and a line in the SM's L1 can keep answering 0: the wait may end only at its "
      "deadline. With volatile (every other row) every wait ends. The sb rows: volatile stores and loads, with no "
      "fence, can still end with r0 = r1 = 0 (each store still on its way while the other thread's load reads); a "
      "__threadfence() between them forbids it; release/acquire does not: a release orders the thread's earlier "
      "accesses before it and an acquire its later accesses after it, but nothing orders a release store before a "
      "later acquire load of another location. The mp rows: with every access volatile the model still allows the "
      "stale read, because nothing orders the two stores or the two loads.");
  TableOptions opt;
  opt.label = true;
  opt.access = true;
  s.add(litmus_table("volatile against fences and atomics", rows, gpu_run, opt));
  for (const auto& r : rows)
    if (r.timeouts_expected)
      s.note("the wait on a plain load gives up after " +
             report::format_value(budget_ms(r.budget_ns), report::Format::ms, true) +
             " and its thread stops: the model lets every plain load of y return 0");
  add_litmus_checks(s, rows, gpu_run, "counts need a GPU");
  return s;
}

report::Section volatile_part(Run& run) {
  struct Case {
    const char* label;
    Test test;
    Fence fence;
    Access access;
    bool weak_wait;
  };
  const Case cases[] = {
      {"mp, plain-load wait", Test::mp, Fence::none, Access::plain, true},
      {"mp, volatile wait", Test::mp, Fence::none, Access::plain, false},
      {"mp, all volatile", Test::mp, Fence::none, Access::vol, false},
      {"sb, all volatile", Test::sb, Fence::none, Access::vol, false},
      {"lb, all volatile", Test::lb, Fence::none, Access::vol, false},
      {"sb, volatile + fence", Test::sb, Fence::device, Access::vol, false},
      {"sb, release/acquire", Test::sb, Fence::rel_acq, Access::vol, false},
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
    row.label = c.label;
    row.timeouts_expected = c.weak_wait;
    rows.push_back(std::move(row));
  }
  run_rows(rows, run.ctx.gpu);
  return volatile_section(rows, run.ctx.gpu);
}

}  // namespace cudasync::threadfence
