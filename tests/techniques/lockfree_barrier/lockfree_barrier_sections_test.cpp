// A barrier's section and the summary, fed with made-up GPU runs: the checks a GPU run adds (by id),
// the seed's code reported and not checked, the blocks named past co-residency, the summary's
// ratio to grid.sync, and the timeline.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "techniques/lockfree_barrier/lesson.hpp"

namespace cudasync::lockfree_barrier {
namespace {

// A run of 4 blocks of 32 threads on a (made-up) GPU of 4 resident slots or more.
struct Fixture {
  RunContext ctx;
  Run run{Options{}, ctx, parts::Selection{}};
  Fixture(int blocks, int phases) {
    run.s.blocks = blocks;
    run.s.threads = 32;
    run.s.phases = phases;
    run.s.software = assumed_coresidency(32, 32, kH100Limits, "test");
    run.s.cooperative = run.s.software;
    run.s.cluster = run.s.software;
    run.options.trace = true;
    run.s.timer_step_ns = 32;
    run.want = model_values(blocks, 32, phases, 1);
  }
  BarrierResult result(Barrier b, std::vector<std::uint32_t> values) const {
    BarrierResult r;
    r.barrier = b;
    r.sim = simulate(SimSpec{b, run.s.blocks, run.s.limit_of(b), 32, run.s.phases - 1, 1, 2, 1});
    if (is_correct(b) && !run.s.beyond(b)) r.model_words = final_words(b, run.s.blocks, run.s.phases, 1);
    GpuRun g;
    g.barrier = b;
    g.values = std::move(values);
    g.words = final_words(b, run.s.blocks, run.s.phases, 1);
    g.phases_done.assign(static_cast<std::size_t>(run.s.blocks), run.s.phases);
    g.gave_up.assign(static_cast<std::size_t>(run.s.blocks), 0);
    g.stopped.assign(static_cast<std::size_t>(run.s.blocks), 0);
    for (int i = 0; i < run.s.blocks; ++i) {
      g.arrive_ns.push_back(1000 + 10 * i);
      g.release_ns.push_back(2000 + i);
    }
    g.kernel_ms = 0.1;
    g.ns_per_barrier = b == Barrier::grid_sync ? std::vector<double>{1000.0, 1010.0, 990.0}
                                               : std::vector<double>{600.0, 610.0, 590.0};
    r.gpu = g;
    return r;
  }
};

const report::Check* find_check(const report::Section& s, const std::string& id) {
  for (const auto& c : s.checks)
    if (c.id == id) return &c;
  return nullptr;
}

const report::Fact* find_fact(const report::Section& s, const std::string& id) {
  for (const auto& f : s.facts)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(LockfreeBarrierSections, AgreeingGpuRunPassesAndWrongValuesFail) {
  const Fixture f(4, 3);
  const auto sec = barrier_section(f.result(Barrier::xf_lock, f.run.want), f.run);
  EXPECT_EQ(sec.id, "xf-lock");
  for (const char* id : {"model-passes", "gpu-agrees", "gpu-agrees-words", "no-deadline"}) {
    const auto* c = find_check(sec, id);
    ASSERT_NE(c, nullptr) << id;
    EXPECT_TRUE(c->passed) << id << ": " << c->detail;
  }
  EXPECT_EQ(find_check(sec, "gpu-agrees")->title, "GPU agrees with the reference model: 128 values after 3 phases");
  ASSERT_FALSE(sec.tables.empty());
  EXPECT_EQ(sec.tables.back().id, "timeline");
  EXPECT_EQ(sec.tables.back().rows.size(), 4u);

  auto bad = f.run.want;
  bad[37] ^= 1u;
  const auto failed = barrier_section(f.result(Barrier::xf_lock, bad), f.run);
  const auto* v = find_check(failed, "gpu-agrees");
  ASSERT_NE(v, nullptr);
  EXPECT_FALSE(v->passed);
  EXPECT_NE(v->detail.find("block 1, thread 5"), std::string::npos) << v->detail;
}

TEST(LockfreeBarrierSections, SeedRunsAreReportedNotChecked) {
  const Fixture f(4, 3);
  auto wrong = f.run.want;
  for (std::size_t i = 0; i < 10; ++i) wrong[i] += 1;
  const auto sec = barrier_section(f.result(Barrier::xf_lockfree_unrepaired, wrong), f.run);
  EXPECT_TRUE(sec.checks.empty());
  const auto* fact = find_fact(sec, "gpu-wrong-values");
  ASSERT_NE(fact, nullptr);
  EXPECT_EQ(std::get<std::int64_t>(fact->value), 10);
  EXPECT_EQ(fact->format, report::Format::count);
}

TEST(LockfreeBarrierSections, PastCoresidencyNamesWhoNeverArrived) {
  Fixture f(6, 3);
  f.run.s.software.blocks_per_sm = 1;
  f.run.s.software.sm_count = 4;  // 4 resident slots
  f.run.want.clear();
  BarrierResult r = f.result(Barrier::own, {});
  GpuRun& g = *r.gpu;
  g.deadline_hit = true;
  for (std::size_t i = 0; i < 6; ++i) {
    g.release_ns[i] = 0;
    if (i >= 4) {
      g.arrive_ns[i] = 0;
      g.stopped[i] = 1;
    } else {
      g.gave_up[i] = 1;
    }
  }
  const auto sec = barrier_section(r, f.run);
  const auto* never = find_fact(sec, "gpu-never-arrived");
  ASSERT_NE(never, nullptr);
  EXPECT_EQ(std::get<std::string>(never->value), "4-5");
  for (const char* id : {"deadline-ended", "model-deadlocks"}) {
    const auto* c = find_check(sec, id);
    ASSERT_NE(c, nullptr) << id;
    EXPECT_TRUE(c->passed) << id << ": " << c->detail;
  }
  EXPECT_EQ(find_check(sec, "gpu-agrees"), nullptr);  // no values compared past co-residency
}

TEST(LockfreeBarrierSections, RefusedCooperativeGridIsChecked) {
  Fixture f(6, 3);
  for (Coresidency* c : {&f.run.s.software, &f.run.s.cooperative}) {
    c->blocks_per_sm = 1;
    c->sm_count = 4;  // 4 resident slots
  }
  BarrierResult r = f.result(Barrier::grid_sync, {});
  r.gpu->refused = "cudaLaunchCooperativeKernel refused the grid";
  const auto sec = barrier_section(r, f.run);
  const auto* c = find_check(sec, "gpu-refused");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->passed) << c->detail;
}

TEST(LockfreeBarrierSections, SummaryDividesByGridSync) {
  Fixture f(4, 3);
  for (Barrier b : {Barrier::grid_sync, Barrier::own}) f.run.results.push_back(f.result(b, f.run.want));
  report::Report r;
  summary_finish(f.run, r);
  ASSERT_EQ(r.sections.size(), 1u);
  EXPECT_EQ(r.sections[0].id, "summary");
  const auto& t = r.sections[0].tables.at(0);
  EXPECT_EQ(std::get<std::string>(t.cell(1, "barrier")), "own");
  EXPECT_DOUBLE_EQ(std::get<double>(t.cell(1, "vs-grid-sync")), 0.6);
  EXPECT_DOUBLE_EQ(std::get<double>(t.cell(1, "ns")), 600.0);
  // One barrier alone has no summary.
  f.run.results.pop_back();
  report::Report one;
  summary_finish(f.run, one);
  EXPECT_TRUE(one.sections.empty());
  // Nor has a run whose every barrier was waived: it exits 77 with the setup alone.
  f.run.results = {BarrierResult{}, BarrierResult{}};
  for (auto& b : f.run.results) b.waived = "no clusters here";
  report::Report waived;
  summary_finish(f.run, waived);
  EXPECT_TRUE(waived.sections.empty());
}

TEST(LockfreeBarrierSections, Timeline) {
  EXPECT_EQ(timeline(0, 100, 0, 100, 11), "a---------r");
  EXPECT_EQ(timeline(50, 100, 0, 100, 11), "     a----r");
  EXPECT_EQ(timeline(0, 0, 0, 100, 5), "a----");  // never released: waits to the end
  EXPECT_EQ(timeline(30, 30, 0, 100, 11), "   x");
}

}  // namespace
}  // namespace cudasync::lockfree_barrier
