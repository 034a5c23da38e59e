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
  report::Section s("litmus", "litmus tests: what a fence forbids, and what the GPU did");
  s.paragraph(
      "Each instance is two threads on fresh locations x and y (0 at the start; every store writes 1). By default "
      "side 0 runs in block 2k and side 1 in block 2k+1, lane for lane, and as many instances run at once as the "
      "GPU holds. Both sides first meet at a per-instance counter, so that they run the test at the same moment; "
      "every wait has a deadline. In mp the consumer has read x once before it waits for the flag, as a polling "
      "program would.");
  s.paragraph(
      "'allowed' lists the outcomes r0 r1 the PTX memory model permits for exactly the PTX these kernels execute: "
      "the model enumerates every candidate execution and keeps those its axioms accept (PTX ISA, \"Memory "
      "Consistency Model\", in the formal form of Lustig et al., ASPLOS 2019). An allowed weak outcome may or may "
      "not appear on a given GPU; a forbidden one that appears is a finding, and the check fails.");
  if (!rows.empty()) {
    const LitmusSpec& first = rows.front().spec;
    s.fact("access", "access", std::string(to_string(first.access)),
           report::Format::plain,
           first.access == Access::plain
               ? "--access: ld.global / st.global, weak (mp's flag is volatile: the consumer waits on it)"
               : "--access: ld.volatile / st.volatile, relaxed at system scope");
    s.fact("sides", "sides",
           std::string(first.placement == Placement::same_block ? "in one block (two halves of its warps)"
                                                                 : "in two blocks (2k and 2k+1)"),
           report::Format::plain, "--placement");
  }
  add_grid_facts(s, rows);
  if (gpu_run && !rows.empty() && rows.front().gpu)
    add_same_sm_fact(s, "pairs-same-sm", "pairs with both sides on one SM", *rows.front().gpu);
  s.add(litmus_table("outcomes per configuration", rows, gpu_run, TableOptions{}));
  add_litmus_checks(s, rows, gpu_run, "counts need a GPU: the model says which outcomes are allowed, the GPU what happens");
  s.note("what each fence compiles to: cudasync threadfence --part ptx");
  return s;
}

report::Section litmus_part(Run& run) {
  auto rows = litmus_rows(run.options, run.iterations);
  run_rows(rows, run.ctx.gpu);
  return litmus_section(rows, run.ctx.gpu);
}

}  // namespace cudasync::threadfence
