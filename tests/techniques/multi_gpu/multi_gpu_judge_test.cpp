// multi-gpu's verdicts as functions: the flag rows' words and summary, value comparison, bandwidth.
#include <gtest/gtest.h>

#include "techniques/multi_gpu/lesson.hpp"
#include "techniques/multi_gpu/multi_gpu_test_support.hpp"

namespace cudasync::multi_gpu {
namespace {

using test_support::counts;

FlagRow row(Fence p, Fence c, std::optional<FlagCounts> gpu) {
  FlagRow r = make_flag_row({p, c, Consumer::peer_gpu});
  r.gpu = gpu;
  return r;
}

TEST(MultiGpuJudge, VerdictWords) {
  EXPECT_EQ(flag_verdict(row(Fence::none, Fence::none, std::nullopt)), "allowed");
  EXPECT_EQ(flag_verdict(row(Fence::system, Fence::system, std::nullopt)), "forbidden");
  EXPECT_EQ(flag_verdict(row(Fence::none, Fence::none, counts(90, 10))), "allowed, seen");
  EXPECT_EQ(flag_verdict(row(Fence::none, Fence::none, counts(100, 0))), "allowed, not seen");
  EXPECT_EQ(flag_verdict(row(Fence::system, Fence::system, counts(100, 0))), "forbidden, not seen");
  EXPECT_EQ(flag_verdict(row(Fence::system, Fence::system, counts(99, 1))), "FORBIDDEN, SEEN");
}

TEST(MultiGpuJudge, StaleShareOfTheCompletedHandoffs) {
  EXPECT_DOUBLE_EQ(*stale_share(counts(75, 25, 900)), 0.25);
  EXPECT_FALSE(stale_share(counts(0, 0, 10)));
}

TEST(MultiGpuJudge, SummaryFindsForbiddenStaleReadsAndTimeouts) {
  const std::vector<FlagRow> rows = {row(Fence::none, Fence::none, counts(50, 50)),
                                     row(Fence::system, Fence::system, counts(98, 2)),
                                     row(Fence::rel_acq_system, Fence::rel_acq_system, counts(90, 0, 10)),
                                     row(Fence::device, Fence::device, std::nullopt)};
  const FlagSummary s = summarize(rows);
  EXPECT_EQ(s.completed, 100u + 100u + 90u);
  EXPECT_EQ(s.stale_where_forbidden, 2u);
  EXPECT_EQ(s.checked_where_forbidden, 190u);
  ASSERT_EQ(s.findings.size(), 1u);
  EXPECT_NE(s.findings[0].find("system -> system"), std::string::npos) << s.findings[0];
  ASSERT_EQ(s.timeouts.size(), 1u);
  EXPECT_NE(s.timeouts[0].find("rel-acq-system -> rel-acq-system: 10 of 100"), std::string::npos) << s.timeouts[0];
}

TEST(MultiGpuJudge, RowLabelNamesTheHost) {
  EXPECT_EQ(row_label({Fence::device, Fence::none, Consumer::host}), "device -> host");
  EXPECT_EQ(row_label({Fence::system, Fence::rel_acq_system, Consumer::peer_gpu}), "system -> rel-acq-system");
}

TEST(MultiGpuJudge, CompareValues) {
  EXPECT_TRUE(compare_values({1, 2, 3}, {1, 2, 3}).same());
  const ValuesDiff d = compare_values({1, 9, 3, 8}, {1, 2, 3, 4});
  EXPECT_EQ(d.differ, 2u);
  EXPECT_EQ(d.first, 1);
  const ValuesDiff shorter = compare_values({1, 2}, {1, 2, 3});
  EXPECT_EQ(shorter.differ, 1u);
  EXPECT_EQ(shorter.first, 2);
  EXPECT_FALSE(compare_values({}, {}).same());  // nothing compared is no agreement
}

TEST(MultiGpuJudge, Bandwidth) {
  EXPECT_DOUBLE_EQ(gbps(1'000'000'000ull, 1e9), 1.0);
  EXPECT_DOUBLE_EQ(gbps(64ull << 20, 0.0), 0.0);
  const auto v = gbps_samples(2000, {1000.0, 500.0});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_DOUBLE_EQ(v[0], 2.0);
  EXPECT_DOUBLE_EQ(v[1], 4.0);
}

}  // namespace
}  // namespace cudasync::multi_gpu
