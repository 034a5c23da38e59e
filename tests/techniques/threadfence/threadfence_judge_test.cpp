// The verdicts of threadfence as functions: litmus rows judged against the PTX memory model
// (allowed / forbidden, seen or not, findings, unexpected timeouts, the weak share), the lastBlock
// and WorkQueue tallies, and the opcodes a probe's PTX must hold.
#include <gtest/gtest.h>

#include "techniques/threadfence/lesson.hpp"

namespace cudasync::threadfence {
namespace {

using T = threadfence::Test;  // inside a TEST, Test is testing::Test

LitmusCounts counts(std::uint64_t c00, std::uint64_t c01, std::uint64_t c10, std::uint64_t c11,
                    std::uint64_t timed_out = 0) {
  LitmusCounts c;
  c.outcome[0] = c00;
  c.outcome[1] = c01;
  c.outcome[2] = c10;
  c.outcome[3] = c11;
  c.timed_out = timed_out;
  c.instances = c00 + c01 + c10 + c11 + timed_out;
  return c;
}

LitmusRow row(Test t, Fence f, std::optional<LitmusCounts> c = std::nullopt) {
  LitmusSpec s;
  s.test = t;
  s.fence[0] = s.fence[1] = f;
  LitmusRow r = make_row(s, 1000, 20000000);
  r.gpu = c;
  return r;
}

TEST(ThreadfenceJudge, WithoutCountsTheVerdictIsTheModels) {
  EXPECT_EQ(litmus_verdict(row(T::mp, Fence::none)), "allowed");
  EXPECT_EQ(litmus_verdict(row(T::mp, Fence::device)), "forbidden (causality)");
  EXPECT_TRUE(forbidden_seen(row(T::mp, Fence::device)).empty());
}

TEST(ThreadfenceJudge, AllowedAndForbiddenSeenOrNot) {
  EXPECT_EQ(litmus_verdict(row(T::mp, Fence::none, counts(0, 0, 5, 95))), "allowed, seen");
  EXPECT_EQ(litmus_verdict(row(T::mp, Fence::none, counts(0, 0, 0, 100))), "allowed, not seen");
  EXPECT_EQ(litmus_verdict(row(T::mp, Fence::device, counts(0, 0, 0, 100))), "forbidden, not seen");
  const LitmusRow bad = row(T::sb, Fence::device, counts(3, 50, 50, 897));
  EXPECT_EQ(litmus_verdict(bad), "FORBIDDEN, SEEN");
  EXPECT_EQ(forbidden_seen(bad), std::vector<int>{outcome_index(0, 0)});
}

TEST(ThreadfenceJudge, AWaitThatMayGiveUpSaysHowManyDid) {
  LitmusRow r = row(T::mp, Fence::none, counts(0, 0, 0, 20, 80));
  r.timeouts_expected = true;
  EXPECT_EQ(litmus_verdict(r), "80 of 100 waits gave up");
  r.gpu = counts(0, 0, 0, 100);
  EXPECT_EQ(litmus_verdict(r), "every wait saw y = 1");
}

TEST(ThreadfenceJudge, WeakShareIsOfTheCompletedInstances) {
  EXPECT_DOUBLE_EQ(*weak_share(counts(0, 0, 150000, 120336), T::mp), 150000.0 / 270336.0);
  EXPECT_DOUBLE_EQ(*weak_share(counts(5, 1000, 1000, 268331), T::sb), 5.0 / 270336.0);
  EXPECT_DOUBLE_EQ(*weak_share(counts(0, 0, 10, 80, 10), T::mp), 10.0 / 90.0) << "timed-out ones left out";
  EXPECT_FALSE(weak_share(counts(0, 0, 0, 0, 7), T::mp).has_value());
}

TEST(ThreadfenceJudge, SummaryNamesFindingsAndUnexpectedTimeouts) {
  LitmusRow plain_wait = row(T::mp, Fence::none, counts(0, 0, 0, 20, 80));
  plain_wait.timeouts_expected = true;
  const LitmusSummary s = summarize({row(T::mp, Fence::none, counts(0, 0, 10, 80, 10)),
                                     row(T::sb, Fence::device, counts(3, 50, 50, 897)), plain_wait,
                                     row(T::lb, Fence::none)});
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.completed, 90u + 1000u + 20u);
  EXPECT_EQ(s.bounded_waits, 100u + 1000u) << "the plain-load wait may give up: not counted";
  ASSERT_EQ(s.findings.size(), 1u);
  EXPECT_NE(s.findings[0].find("sb with fence device (plain, different-blocks): r0=0 r1=0 3 times in 1,000"),
            std::string::npos)
      << s.findings[0];
  EXPECT_NE(s.findings[0].find("forbids it (causality)"), std::string::npos) << s.findings[0];
  EXPECT_EQ(s.timeouts, std::vector<std::string>{"mp none: 10 of 100"});
  // mp's consumer records r0 = 1 once its wait ends: no execution of the model ends with r0 = 0.
  const LitmusSummary odd = summarize({row(T::mp, Fence::device, counts(0, 2, 0, 98))});
  ASSERT_EQ(odd.findings.size(), 1u);
  EXPECT_NE(odd.findings[0].find("r0=0 r1=1 2 times in 100 instances; the PTX memory model forbids it (no candidate "
                                 "execution gives it)"),
            std::string::npos)
      << odd.findings[0];
}

TEST(ThreadfenceJudge, GuardTallyCountsRightSumsAndResets) {
  LastBlockRun r;
  r.result = {99, 99, 98, 99};
  r.counter = {0, 1, 0, 0};
  r.last_block = {7, 3, 5, -1};  // the last run found no last block: its sum does not count
  const GuardTally t = tally_guard(r, 99);
  EXPECT_EQ(t.runs, 4u);
  EXPECT_EQ(t.right, 2u);
  EXPECT_EQ(t.wrong(), 2u);
  EXPECT_EQ(t.reset, 3u);
}

TEST(ThreadfenceJudge, QueueTallyWantsEveryItemOnceAndTheChecksum) {
  QueueRun r;
  r.times_processed = {1, 1, 1, 1};
  r.checksum = checksum_of_all(4);
  EXPECT_TRUE(tally_queue(r).passed());
  r.times_processed[2] = 2;
  r.checksum += item_checksum(2);
  const QueueTally t = tally_queue(r);
  EXPECT_FALSE(t.passed());
  EXPECT_EQ(t.once, 3u);
  EXPECT_FALSE(t.checksum_equal);

  const Schedule model = static_schedule({5, 1, 1, 1}, 2);
  r.processed_by = model.item_block;
  EXPECT_TRUE(assignment_agrees(r, model));
  r.processed_by[0] = 1;
  EXPECT_FALSE(assignment_agrees(r, model));

  r.block_cycles = {1000, 3000};
  r.ns_per_cycle = 0.5;
  EXPECT_EQ(block_ns(r), (std::vector<double>{500.0, 1500.0}));
}

TEST(ThreadfenceJudge, MissingOpcodesArePrefixesNoInstructionBeginsWith) {
  const std::vector<std::string> code = {"fence.sc.gpu", "st.relaxed.gpu.b32 [%rd1],%r1"};
  EXPECT_TRUE(missing_opcodes(code, {"fence.sc.gpu", "st.relaxed.gpu"}).empty());
  EXPECT_EQ(missing_opcodes(code, {"membar.gl", "st.relaxed"}), std::vector<std::string>{"membar.gl"});
  EXPECT_EQ(missing_opcodes({}, {"atom."}), std::vector<std::string>{"atom."});
}

}  // namespace
}  // namespace cudasync::threadfence
