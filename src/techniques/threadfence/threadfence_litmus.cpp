// Part litmus: the test x fence matrix (or the rows --test and --fence choose), what the PTX memory
// model allows for each, and on a GPU what many concurrent instances did.
#include <algorithm>

#include "techniques/threadfence/threadfence_lesson.hpp"
#include "techniques/threadfence/threadfence_litmus_table.hpp"

namespace cudasync::threadfence {

namespace {

std::vector<Test> tests_of(const Options& o) {
  if (o.tests.empty()) return {Test::mp, Test::sb, Test::lb, Test::corr};
  std::vector<Test> t;
  for (const auto& name : o.tests)
    if (const auto x = parse_test(name); x && std::find(t.begin(), t.end(), *x) == t.end()) t.push_back(*x);
  return t;
}

// The fence pairs for `test`: the given one, else the matrix (each fence on both sides; mp also
// __threadfence() on one side only). A single name for corr is the reader's fence; its writer
// takes none, or rel-acq.
std::vector<std::pair<Fence, Fence>> fences_for(const Options& o, Test test) {
  const auto one = [&](Fence f) {
    if (test == Test::corr && f != Fence::rel_acq) return std::pair<Fence, Fence>{Fence::none, f};
    return std::pair<Fence, Fence>{f, f};
  };
  if (o.fence.size() == 1) return {one(*parse_fence(o.fence[0]))};
  if (o.fence.size() == 2) return {{*parse_fence(o.fence[0]), *parse_fence(o.fence[1])}};
  std::vector<std::pair<Fence, Fence>> out;
  for (int f = 0; f < kFences; ++f) out.push_back(one(static_cast<Fence>(f)));
  if (test == Test::mp) {  // each half of the pair alone
    out.push_back({Fence::device, Fence::none});
    out.push_back({Fence::none, Fence::device});
  }
  return out;
}

}  // namespace

std::vector<LitmusRow> litmus_rows(const Options& o, long long iterations) {
  LitmusSpec base;
  base.access = o.access == "volatile" ? Access::vol : Access::plain;
  base.placement = o.placement == "same-block" ? Placement::same_block : Placement::different_blocks;
  std::vector<LitmusRow> rows;
  for (Test t : tests_of(o))
    for (const auto& [f0, f1] : fences_for(o, t)) {
      LitmusSpec s = base;
      s.test = t;
      s.fence[0] = f0;
      s.fence[1] = f1;
      rows.push_back(make_row(s, iterations, kWaitBudgetNs));
    }
  return rows;
}

report::Section litmus_section(const std::vector<LitmusRow>& rows, bool gpu_run) {
  report::Section s("litmus", say("litmus.title"));
  s.paragraph(say("litmus.about"));
  s.paragraph(say("litmus.about-allowed"));
  if (!rows.empty()) {
    const LitmusSpec& first = rows.front().spec;
    s.fact("access", say("litmus.access"), std::string(to_string(first.access)),
           report::Format::plain,
           say(first.access == Access::plain ? "litmus.access-plain-note" : "litmus.access-volatile-note"));
    s.fact("sides", say("litmus.sides"),
           say(first.placement == Placement::same_block ? "litmus.sides-one-block" : "litmus.sides-two-blocks"),
           report::Format::plain, "--placement");
  }
  add_grid_facts(s, rows);
  if (gpu_run && !rows.empty() && rows.front().gpu)
    add_same_sm_fact(s, "pairs-same-sm", say("litmus.pairs-same-sm"), *rows.front().gpu);
  s.add(litmus_table(say("litmus.table-title"), rows, gpu_run, TableOptions{}));
  add_litmus_checks(s, rows, gpu_run, say("litmus.no-gpu"));
  s.note(say("litmus.ptx-note"));
  return s;
}

report::Section litmus_part(Run& run) {
  auto rows = litmus_rows(run.options, run.iterations);
  run_rows(rows, run.ctx.gpu);
  return litmus_section(rows, run.ctx.gpu);
}

}  // namespace cudasync::threadfence
