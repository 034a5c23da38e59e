// The verdicts on GPU results, fed made-up ones: right ones must pass, wrong ones must fail and say
// where. Also the two sections built from given inputs (the listing, the misuse outcomes). The real
// GPU runs are in the _gpu_test.
#include <gtest/gtest.h>

#include <algorithm>
#include <variant>

#include "support/report_lookup.hpp"
#include "core/words/words.hpp"
#include "techniques/named_barriers/lesson.hpp"

namespace cudasync::named_barriers {
namespace {

const report::Check* check(const report::Section& s, const std::string& id) {
  for (const auto& c : s.checks)
    if (c.id == id) return &c;
  ADD_FAILURE() << "section " << s.id << " has no check " << id;
  static const report::Check none;
  return &none;
}
std::int64_t int_at(const report::Table& t, std::size_t row, const std::string& key) {
  const auto* v = std::get_if<std::int64_t>(&t.cell(row, key));
  EXPECT_NE(v, nullptr) << t.id << " row " << row << " " << key << " is not an integer";
  return v ? *v : -1;
}
using test::failed_count;

// ---- producer / consumer ---------------------------------------------------------------------------

// A producer/consumer run as a correct GPU would report it: every round, producers arrive at
// 1000*r + 10, consumers leave full at +50, read by +60, producers leave empty at +90.
PcResult good_pc(const PcSpec& spec) {
  PcResult r;
  r.consumed = model_consumed(spec);
  const int warps = spec.block_threads() / kWarpSize;
  r.stamps.assign(static_cast<std::size_t>(warps * spec.rounds * kPcStamps), 0);
  for (int w = 0; w < warps; ++w)
    for (int round = 0; round < spec.rounds; ++round) {
      long long* s = &r.stamps[static_cast<std::size_t>((w * spec.rounds + round) * kPcStamps)];
      const long long base = 1000 * round;
      if (w < spec.producer_warps()) {
        s[0] = base + 10; s[1] = base + 12; s[2] = base + 40; s[3] = base + 90;
      } else {
        s[0] = base + 5; s[1] = base + 50; s[2] = base + 60; s[3] = base + 60;
      }
    }
  r.ns_per_cycle = 0.5;
  return r;
}

PcSpec pc_spec() {
  PcSpec spec;
  spec.producers = 64;
  spec.consumers = 32;
  spec.rounds = 3;
  spec.input = make_input(spec.rounds, spec.producers, 4);
  return spec;
}

TEST(NamedBarriersJudge, ProducerConsumerRightResultPasses) {
  const PcSpec spec = pc_spec();
  const PcResult r = good_pc(spec);
  const RoundsVerdict v = judge_rounds(spec, r.consumed);
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(v.equal, (std::vector<int>{64, 64, 64}));
  EXPECT_EQ(v.equal_total, 192);
  const PcTiming t = pc_timing(spec, r);
  EXPECT_TRUE(t.consumers_waited());
  EXPECT_TRUE(t.producers_waited());
  EXPECT_EQ(t.arrive_cycles, 2);
  EXPECT_EQ(t.full_wait_cycles, 45);
  EXPECT_EQ(t.empty_wait_cycles, 50);
  // The same through the section helpers: every check passes, --trace adds a row per warp and round.
  report::Section s("producer-consumer", "t");
  add_rounds(s, spec, r);
  add_pc_timing(s, spec, r, true, {"a", "b", "c"});
  EXPECT_EQ(failed_count(s), 0u);
  EXPECT_TRUE(check(s, "gpu-agrees")->passed);
  const auto trace = std::find_if(s.tables.begin(), s.tables.end(), [](const auto& table) { return table.id == "trace"; });
  ASSERT_NE(trace, s.tables.end());
  EXPECT_EQ(trace->rows.size(), static_cast<std::size_t>(3 * 3));  // 3 warps x 3 rounds
  // Cycles after the first stamp (a consumer's, at 5): numbers, and no "out" for a consumer's signal.
  EXPECT_EQ(int_at(*trace, 0, "full-in"), 5);
  EXPECT_EQ(int_at(*trace, 0, "empty-out"), 85);
  EXPECT_TRUE(std::holds_alternative<report::Undefined>(trace->cell(8, "empty-out")));
  EXPECT_EQ(int_at(s.tables.at(0), 2, "gpu-equal"), 64);
}

TEST(NamedBarriersJudge, ProducerConsumerWrongValueFailsAndIsMarked) {
  const PcSpec spec = pc_spec();
  PcResult r = good_pc(spec);
  r.consumed[static_cast<std::size_t>(64 + 7)] += 1;  // round 1, slot 7
  const RoundsVerdict v = judge_rounds(spec, r.consumed);
  EXPECT_EQ(v.bad_rounds, std::vector<int>{1});
  EXPECT_EQ(v.equal[1], 63);
  report::Section s("producer-consumer", "t");
  add_rounds(s, spec, r);
  const report::Check* c = check(s, "gpu-agrees");
  EXPECT_FALSE(c->passed);
  EXPECT_NE(c->detail.find("rounds 1"), std::string::npos) << c->detail;
  const auto& rounds = s.tables.at(0);
  EXPECT_EQ(rounds.rows[1].mark, report::RowMark::mismatch);
  EXPECT_EQ(rounds.rows[0].mark, report::RowMark::none);
}

TEST(NamedBarriersJudge, ProducerConsumerEarlyReleaseFails) {
  const PcSpec spec = pc_spec();
  PcResult r = good_pc(spec);
  // Round 2: the consumer warp (warp 2) leaves full at cycle 2008, before producer warp 1 arrived (2010).
  r.stamps[static_cast<std::size_t>((2 * spec.rounds + 2) * kPcStamps + 1)] = 2008;
  EXPECT_EQ(pc_timing(spec, r).bad_full_rounds, std::vector<int>{2});
  // A producer leaving empty (t3) before the consumers read (2060) breaks the way back.
  r = good_pc(spec);
  r.stamps[static_cast<std::size_t>((1 * spec.rounds + 0) * kPcStamps + 3)] = 55;
  const PcTiming t = pc_timing(spec, r);
  EXPECT_TRUE(t.consumers_waited());
  EXPECT_EQ(t.bad_empty_rounds, std::vector<int>{0});
}

// ---- bar-sync --------------------------------------------------------------------------------------

GroupsTrace groups_trace(const GroupsSpec& spec, long long short_step, long long long_step) {
  GroupsTrace t;
  const int warps = spec.block_threads() / kWarpSize;
  for (int w = 0; w < warps; ++w)
    for (int ph = 0; ph < spec.phases; ++ph) {
      const long long step = w < spec.warps(0) ? short_step : long_step;
      t.arrive.push_back(step * (ph + 1) - 5 + w);
      t.leave.push_back(step * (ph + 1) + 20);
    }
  t.passed.assign(static_cast<std::size_t>(warps), spec.phases);
  for (int g = 0; g < 2; ++g)
    for (int ph = 0; ph < spec.phases; ++ph) t.arrivals.push_back(spec.warps(g));
  t.ns_per_cycle = 0.55;
  return t;
}

TEST(NamedBarriersJudge, GroupsIndependentPassesAndWaitingForTheOtherGroupFails) {
  GroupsSpec spec;
  spec.phases = 3;
  const Simulation sim = simulate(groups_program(spec), spec.block_threads());
  const GroupsVerdict good = judge_groups(spec, sim, groups_trace(spec, 2000, 10000));
  EXPECT_TRUE(good.agrees());
  EXPECT_TRUE(good.bad_order.empty());
  EXPECT_TRUE(good.independent);
  EXPECT_EQ(good.origin, 1995);
  EXPECT_EQ(good.group0_done, 6020 - 1995);
  EXPECT_EQ(good.group1_first, 9997 - 1995);
  ASSERT_EQ(good.phases.size(), sim.phases.size());
  for (const auto& p : good.phases) EXPECT_TRUE(p.agrees);
  // Group 0 still in its phases when group 1 arrived: the hold did not work.
  EXPECT_FALSE(judge_groups(spec, sim, groups_trace(spec, 10000, 10000)).independent);
  // The hold gave up: group 0 could not finish without group 1.
  GroupsTrace stuck = groups_trace(spec, 2000, 10000);
  stuck.hold_gave_up = true;
  EXPECT_FALSE(judge_groups(spec, sim, stuck).independent);
  // A warp released before its group's last arrival breaks the barrier rule.
  GroupsTrace early = groups_trace(spec, 2000, 10000);
  early.leave[0] = early.arrive[static_cast<std::size_t>(spec.phases)] - 1;  // warp 0 left phase 0 before warp 1 arrived
  const GroupsVerdict e = judge_groups(spec, sim, early);
  EXPECT_EQ(e.bad_order, std::vector<int>{0});
  EXPECT_FALSE(e.phases[0].agrees);
  EXPECT_TRUE(e.agrees()) << "the counts still agree";
  // A missing arrival is a disagreement with the model; so is a warp that passed too few barriers.
  GroupsTrace missing = groups_trace(spec, 2000, 10000);
  missing.arrivals[1] = 1;
  EXPECT_FALSE(judge_groups(spec, sim, missing).agrees());
  GroupsTrace short_warp = groups_trace(spec, 2000, 10000);
  short_warp.passed[4] = 2;
  EXPECT_EQ(judge_groups(spec, sim, short_warp).short_passed, std::vector<int>{4});
}

TEST(NamedBarriersJudge, SimulationDetailSaysWhatStopped) {
  GroupsSpec spec;
  EXPECT_EQ(simulation_detail(simulate(groups_program(spec), spec.block_threads())),
            "8 phases complete; no warp is left waiting");
  EXPECT_EQ(simulation_detail(simulate(misuse_program({128, 64}, 1), 64)),
            "warp 0 waits forever at barrier 1 (64 of 128 threads arrived)");
}

// ---- bar-red ---------------------------------------------------------------------------------------

TEST(NamedBarriersJudge, RedComparesBothFormsWithTheModel) {
  const auto values = evaluate(*parse_predicate("lane<5"), 64, 1);
  const RedTotals m = model_red(values);
  RedResult gpu;
  for (int tid = 0; tid < 64; ++tid)
    for (std::int32_t v : {10, 0, 1, 10, 0, 1}) gpu.values.push_back(v);
  const RedVerdict good = judge_red(64, m, gpu);
  EXPECT_TRUE(good.passed());
  EXPECT_EQ(good.values[red_count], 10);
  // __syncthreads_or may return any non-zero value for true.
  for (int tid = 0; tid < 64; ++tid) gpu.values[static_cast<std::size_t>(tid * kRedColumns + red_or)] = 7;
  EXPECT_TRUE(judge_red(64, m, gpu).passed());
  // One thread got a different popc: the column differs, and says so.
  gpu.values[static_cast<std::size_t>(33 * kRedColumns + red_ptx_popc)] = 9;
  const RedVerdict bad = judge_red(64, m, gpu);
  EXPECT_EQ(bad.bad_columns, std::vector<int>{red_ptx_popc});
  EXPECT_FALSE(bad.values[red_ptx_popc].has_value());
}

// ---- listing ---------------------------------------------------------------------------------------

TEST(NamedBarriersJudge, ListingChecksLookForTheInstructions) {
  EXPECT_EQ(listing_expectations(75).size(), 3u) << "no cuda::barrier kernel below 8.0";
  EXPECT_EQ(listing_expectations(80).back().opcodes, std::vector<std::string>{"ATOMS.ARRIVE"});
  EXPECT_EQ(missing_opcodes({"@P0 BAR.ARV 0x1, R2", "BAR.SYNC.DEFER_BLOCKING 0x2"}, {"BAR.ARV", "BAR.SYNC", "B2R.RESULT"}),
            std::vector<std::string>{"B2R.RESULT"});
  KernelListing l = parse_kernel_listing(
      "S arch sm_90\n"
      "S fn _ZN8cudasync14named_barriers12_GLOBAL__N_113groups_kernelENS1_10GroupsArgsEPx\nS BAR.SYNC.DEFER_BLOCKING R11, R11\n"
      "S fn _ZN8cudasync14named_barriers12_GLOBAL__N_19pc_kernelEv\nS BAR.SYNC.DEFER_BLOCKING R3, R3\n"
      "S fn _ZN8cudasync14named_barriers12_GLOBAL__N_110red_kernelEv\nS BAR.RED.POPC.DEFER_BLOCKING R0, P0\n"
      "S fn _ZN8cudasync14named_barriers12_GLOBAL__N_122cuda_barrier_pc_kernelEv\nS @P0 SYNCS.ARRIVE.TRANS64.A1T0 R4\n"
      "S SYNCS.PHASECHK.TRANS64.TRYWAIT P0\n");
  l.available = true;
  const report::Section s = listing_section(l, "sm_90");
  EXPECT_TRUE(check(s, "groups-kernel-opcodes")->passed);
  EXPECT_TRUE(check(s, "cuda-barrier-pc-kernel-opcodes")->passed);  // a predicated instruction counts
  const report::Check* pc = check(s, "pc-kernel-opcodes");
  EXPECT_FALSE(pc->passed);  // no BAR.ARV
  EXPECT_NE(pc->detail.find("BAR.ARV"), std::string::npos);
  EXPECT_FALSE(check(s, "red-kernel-opcodes")->passed);  // no BAR.RED.AND / OR / B2R
  ASSERT_EQ(s.tables.size(), 1u) << "SASS only: this listing has no PTX";
  EXPECT_EQ(s.tables[0].rows.size(), 4u);
  KernelListing none;
  none.why = words::say_both("core", "listing.no-cuda");
  const report::Section n = listing_section(none, "");
  EXPECT_TRUE(n.checks.empty());
  ASSERT_EQ(n.notes.size(), 1u);
  EXPECT_NE(n.notes[0].find("needs a CUDA build"), std::string::npos);
}

// ---- misuse ----------------------------------------------------------------------------------------

MisuseObservation seen(MisuseCase c, std::vector<long long> arrive, std::vector<long long> leave,
                       std::vector<long long> rescue) {
  return {c, std::move(arrive), std::move(leave), std::move(rescue)};
}

TEST(NamedBarriersJudge, ObservedPhasesGroupWarpsReleasedTogether) {
  // Warp 0 waited for warp 1: one phase of two warps.
  EXPECT_EQ(observed_phases(seen({48, 64}, {0, 20000}, {20050, 20040}, {})), (std::vector<std::vector<int>>{{0, 1}}));
  // Warp 0 left at once: two phases of one warp.
  EXPECT_EQ(observed_phases(seen({48, 64}, {0, 20000}, {40, 20040}, {})), (std::vector<std::vector<int>>{{0}, {1}}));
  // Arrival order, not warp order.
  EXPECT_EQ(observed_phases(seen({64, 96}, {40000, 0, 20000}, {2100000, 20030, 20020}, {})),
            (std::vector<std::vector<int>>{{1, 2}, {0}}));
}

TEST(NamedBarriersJudge, ReleasedByAndTheMatchingReading) {
  const MisuseObservation o = seen({128, 64}, {0, 20000}, {4020100, 4020090}, {2020000, 4020050});
  EXPECT_EQ(released_by(o, 0), 2);
  EXPECT_EQ(released_by(seen({48, 64}, {0, 20000}, {20040, 20030}, {}), 0), 0);
  const auto m = matched_prediction({predict_misuse({128, 64}, CountRule::exact)}, o);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->rescues, 2);
  // Released after one rescue arrival only: the model says two are needed.
  EXPECT_FALSE(matched_prediction({predict_misuse({128, 64}, CountRule::exact)},
                                  seen({128, 64}, {0, 20000}, {2020100, 2020090}, {2020000}))
                   .has_value());
  const auto up = matched_prediction(
      {predict_misuse({48, 64}, CountRule::round_up), predict_misuse({48, 64}, CountRule::round_down)},
      seen({48, 64}, {0, 20000}, {20040, 20030}, {}));
  ASSERT_TRUE(up.has_value());
  EXPECT_EQ(up->rule, CountRule::round_up);
}

MisuseOutcome outcome(const MisuseObservation& o) {
  MisuseOutcome out;
  out.c = o.c;
  out.status = MisuseOutcome::Status::ok;
  out.seen = o;
  return out;
}

TEST(NamedBarriersJudge, MisuseSectionShowsTheOutcomes) {
  const std::vector<MisuseCase> cases = {{48, 64}, {128, 64}};
  // 48 read as 64: warp 0 waits for warp 1; 128: two rescue arrivals release both warps.
  std::vector<std::optional<MisuseOutcome>> got = {
      outcome(seen({48, 64}, {0, 20000}, {20040, 20030}, {})),
      outcome(seen({128, 64}, {0, 20000}, {4020100, 4020090}, {2020000, 4020050}))};
  const report::Section s = misuse_section(cases, 1, got, true);
  EXPECT_EQ(failed_count(s), 0u);
  EXPECT_TRUE(check(s, "case-1-gpu-agrees")->passed);
  EXPECT_NE(check(s, "case-1-gpu-agrees")->title.find("bar.sync 1, 128"), std::string::npos);
  bool noted = false;
  for (const auto& n : s.notes) noted = noted || n.find("rounded up to whole warps") != std::string::npos;
  EXPECT_TRUE(noted) << "the note names the reading this GPU followed";
  got[1] = outcome(seen({128, 64}, {0, 20000}, {2020100, 2020090}, {2020000}));
  EXPECT_FALSE(check(misuse_section(cases, 1, got, true), "case-1-gpu-agrees")->passed);
  // A hang the host timeout had to end is a failure of the safety design; a CUDA error is not.
  MisuseOutcome hung;
  hung.c = cases[1];
  hung.status = MisuseOutcome::Status::timeout;
  hung.message = "no answer after 8000 ms: the child was killed";
  got[1] = hung;
  EXPECT_FALSE(check(misuse_section(cases, 1, got, true), "case-1-nothing-hung")->passed);
  MisuseOutcome trapped = hung;
  trapped.status = MisuseOutcome::Status::cuda_error;
  trapped.message = "an illegal instruction was encountered";
  got[1] = trapped;
  EXPECT_TRUE(check(misuse_section(cases, 1, got, true), "case-1-nothing-hung")->passed);
  // Model run: the readings only, no checks.
  const report::Section m = misuse_section(cases, 1, {std::nullopt, std::nullopt}, false);
  EXPECT_TRUE(m.checks.empty());
  EXPECT_EQ(m.tables.size(), 2u);
  EXPECT_EQ(m.tables[0].id, "case-0-model");
}

// ---- early-stamp -----------------------------------------------------------------------------------

// Two rounds of 3 warps: warp 2 arrives last (at 1000, then 5000). Each waiting warp's naive stamp
// comes `naive` cycles after the last arrival, its guarded stamp `guarded` cycles after it.
StampResult stamps(long long naive, long long guarded) {
  StampResult r;
  for (long long last : {1000LL, 5000LL})
    for (int w = 0; w < 3; ++w) {
      const bool late = w == 2;
      r.arrive.push_back(late ? last : last - 900 + w);
      r.naive.push_back(late ? last + 30 : last + naive + w);
      r.guarded.push_back(late ? last + 60 : last + guarded + w);
    }
  return r;
}

TEST(NamedBarriersJudge, StampsAreCountedFromTheLastArrival) {
  StampSpec spec;
  spec.warps = 3;
  spec.rounds = 2;
  const StampVerdict early = judge_stamps(spec, stamps(-850, 40));
  EXPECT_EQ(early.samples, 4) << "two waiting warps in each of two rounds";
  EXPECT_EQ(early.naive_before, 4);
  EXPECT_EQ(early.naive_earliest, -850);
  EXPECT_EQ(early.naive_median, -850);  // median of -850, -849, -850, -849: -849.5, rounded away
  EXPECT_EQ(early.guarded_before, 0);
  EXPECT_TRUE(early.guarded_waited());
  EXPECT_EQ(stamp_finding(early), "the clock read right after the barrier came back before the barrier completed in 4 "
                                  "of 4 waits (median 850 cycles before, earliest 850 cycles before the last "
                                  "arrival): it does not time the barrier");
  const StampVerdict waited = judge_stamps(spec, stamps(20, 40));
  EXPECT_EQ(waited.naive_before, 0);
  EXPECT_TRUE(stamp_finding(waited).rfind("the clock read right after the barrier waited for it in all 4 waits", 0) == 0)
      << stamp_finding(waited);
  // A guarded stamp before the last arrival breaks the PTX ISA's promise: named, by round.
  const StampVerdict broken = judge_stamps(spec, stamps(-850, -10));
  EXPECT_FALSE(broken.guarded_waited());
  EXPECT_EQ(broken.guarded_before, 4);
  EXPECT_EQ(broken.bad_rounds, (std::vector<int>{0, 1}));
  EXPECT_FALSE(judge_stamps(StampSpec{3, 0, 1, 1}, StampResult{}).guarded_waited()) << "no wait is no evidence";
}

TEST(NamedBarriersJudge, TheEarlyStampSectionChecksOnlyTheGuardedStamps) {
  StampSpec spec;
  spec.warps = 3;
  spec.rounds = 2;
  const report::Section s = early_stamp_section(
      spec, {{StampBarrier::syncthreads, stamps(-850, 40)}, {StampBarrier::named, stamps(-850, -10)}}, true);
  EXPECT_TRUE(check(s, "gpu-agrees-syncthreads")->passed);
  EXPECT_FALSE(check(s, "gpu-agrees-named")->passed);
  EXPECT_EQ(check(s, "gpu-agrees-named")->detail, "4 of 4 guarded stamps early; rounds 0, 1");
  EXPECT_EQ(failed_count(s), 1u) << "an early naive stamp is a finding, not a failure";
  const report::Table& t = s.tables.front();
  EXPECT_EQ(int_at(t, 0, "naive"), -850);
  EXPECT_EQ(int_at(t, 0, "naive-before"), 4);
  EXPECT_EQ(int_at(t, 1, "guarded-before"), 4);
  EXPECT_EQ(t.rows[1].mark, report::RowMark::mismatch);
  const report::Section none = early_stamp_section(spec, {}, false);
  EXPECT_TRUE(none.checks.empty());
  EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(none.tables.front().cell(0, "naive")));
}

}  // namespace
}  // namespace cudasync::named_barriers
