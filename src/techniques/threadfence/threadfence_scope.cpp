// Part scope: mp with no fence, __threadfence_block() and __threadfence(), producer and consumer in
// one block and in two.
#include "techniques/threadfence/threadfence_lesson.hpp"
#include "techniques/threadfence/threadfence_litmus_table.hpp"

namespace cudasync::threadfence {

report::Section scope_section(const std::vector<LitmusRow>& rows, bool gpu_run) {
  report::Section s("scope", say("scope.title"));
  s.paragraph(say("scope.about"));
  for (const auto& r : rows)
    if (r.gpu && r.spec.fence[0] == Fence::none) {
      const bool one = r.spec.placement == Placement::same_block;
      add_same_sm_fact(s, one ? "pairs-same-sm-one-block" : "pairs-same-sm-two-blocks",
                       say(one ? "scope.pairs-same-sm-one-block" : "scope.pairs-same-sm-two-blocks"), *r.gpu);
    }
  TableOptions opt;
  opt.placement = true;
  s.add(litmus_table(say("scope.table-title"), rows, gpu_run, opt));
  add_litmus_checks(s, rows, gpu_run, say("counts-need-gpu"));
  return s;
}

report::Section scope_part(Run& run) {
  std::vector<LitmusRow> rows;
  for (Placement p : {Placement::same_block, Placement::different_blocks})
    for (Fence f : {Fence::none, Fence::block, Fence::device}) {
      LitmusSpec s;
      s.test = Test::mp;
      s.fence[0] = s.fence[1] = f;
      s.placement = p;
      rows.push_back(make_row(s, run.iterations, kWaitBudgetNs));
    }
  run_rows(rows, run.ctx.gpu);
  return scope_section(rows, run.ctx.gpu);
}

}  // namespace cudasync::threadfence
