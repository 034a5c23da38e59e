// The misuse part's safety machinery, on the CPU: the child's arguments and one-line protocol, and
// what the parent makes of a child that answers, fails, or hangs. Starting, timing out and killing
// a child is core's (tests/core/child_process_test.cpp); how observed times become phases is in the
// judge test.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/parts/child.hpp"
#include "techniques/named_barriers/lesson.hpp"

namespace cudasync::named_barriers {
namespace {

TEST(NamedBarriersMisuse, ObservationRoundTrips) {
  MisuseObservation o;
  o.c = {128, 64};
  o.arrive_ns = {0, 20011};
  o.leave_ns = {4100200, 4100210};
  o.rescue_ns = {2020000, 4100100};
  const std::string line = format_observation(o);
  EXPECT_EQ(line, "ok count=128 arrive=64 arrive_ns=0,20011 leave_ns=4100200,4100210 rescue_ns=2020000,4100100\n");
  MisuseOutcome out;
  ASSERT_TRUE(parse_child_output(line, out));
  EXPECT_EQ(out.status, MisuseOutcome::Status::ok);
  EXPECT_EQ(out.seen.c.count, 128);
  EXPECT_EQ(out.seen.c.arrive_threads, 64);
  EXPECT_EQ(out.seen.arrive_ns, o.arrive_ns);
  EXPECT_EQ(out.seen.leave_ns, o.leave_ns);
  EXPECT_EQ(out.seen.rescue_ns, o.rescue_ns);
  o.rescue_ns.clear();
  ASSERT_TRUE(parse_child_output(format_observation(o), out));
  EXPECT_TRUE(out.seen.rescue_ns.empty());
}

TEST(NamedBarriersMisuse, CudaErrorLineAndMalformedOutput) {
  MisuseOutcome out;
  ASSERT_TRUE(parse_child_output(format_cuda_error("kernels.cu:9: cudaDeviceSynchronize() failed:\nillegal instruction"), out));
  EXPECT_EQ(out.status, MisuseOutcome::Status::cuda_error);
  EXPECT_EQ(out.message, "kernels.cu:9: cudaDeviceSynchronize() failed: illegal instruction");
  for (const char* bad : {"", "ok", "ok count=48", "ok count=48 arrive=64 arrive_ns=1 leave_ns=2 rescue_ns=",  // 1 warp of 2
                          "ok count=48 arrive=64 arrive_ns=1,x leave_ns=2,3 rescue_ns=", "fine count=48"}) {
    MisuseOutcome o;
    EXPECT_FALSE(parse_child_output(bad, o)) << bad;
  }
}

ChildResult exited(int code, std::string output, std::string err = "") {
  ChildResult r;
  r.status = ChildResult::Status::exited;
  r.exit_code = code;
  r.output = std::move(output);
  r.err = std::move(err);
  r.seconds = 0.4;
  return r;
}

TEST(NamedBarriersMisuse, ChildArgumentsNameTheCaseAndTwoDistinctIds) {
  EXPECT_EQ(misuse_child_args({48, 64}, 5),
            (std::vector<std::string>{"--count", "48", "--arrive", "64", "--barrier-ids", "5,6"}));
  EXPECT_EQ(misuse_child_args({128, 96}, 15),
            (std::vector<std::string>{"--count", "128", "--arrive", "96", "--barrier-ids", "15,14"}));
  RunContext ctx;
  const auto args = parts::child_args(ctx, "named-barriers", "misuse", misuse_child_args({48, 64}, 1));
  ASSERT_GE(args.size(), 5u);
  EXPECT_EQ(args[0], "named-barriers");
  EXPECT_EQ(args[1], "--child");
  EXPECT_EQ(args[2], "misuse");
  EXPECT_EQ(std::count(args.begin(), args.end(), "--misuse-child"), 0) << "the old hidden option is gone";
  const auto lang = std::find(args.begin(), args.end(), "--lang");
  ASSERT_NE(lang, args.end()) << "the child prints in the parent's language";
  ASSERT_NE(lang + 1, args.end());
  EXPECT_EQ(*(lang + 1), "en");
}

TEST(NamedBarriersMisuse, ChildAnswerIsRead) {
  const MisuseOutcome o =
      misuse_outcome({48, 64}, exited(0, "ok count=48 arrive=64 arrive_ns=0,20000 leave_ns=20100,20090 rescue_ns=\n"));
  ASSERT_EQ(o.status, MisuseOutcome::Status::ok) << o.message;
  EXPECT_EQ(o.c.count, 48);
  EXPECT_EQ(o.seen.leave_ns, (std::vector<long long>{20100, 20090}));
  EXPECT_EQ(o.seconds, 0.4);
  const MisuseOutcome e = misuse_outcome({48, 64}, exited(0, format_cuda_error("an illegal instruction was encountered")));
  EXPECT_EQ(e.status, MisuseOutcome::Status::cuda_error);
  EXPECT_EQ(e.message, "an illegal instruction was encountered");
}

TEST(NamedBarriersMisuse, AChildThatDiesIsReportedWithItsStderr) {
  const MisuseOutcome o = misuse_outcome({48, 64}, exited(3, "", "cudasync: error: no usable GPU\n"));
  EXPECT_EQ(o.status, MisuseOutcome::Status::crashed);
  EXPECT_NE(o.message.find("exit 3"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("no usable GPU"), std::string::npos) << o.message;
  EXPECT_EQ(misuse_outcome({48, 64}, exited(0, "fine, thanks\n")).status, MisuseOutcome::Status::crashed)
      << "an answer that is not the protocol";
}

TEST(NamedBarriersMisuse, AHungChildIsATimeout) {
  ChildResult r;
  r.status = ChildResult::Status::timeout;
  r.message = "no answer after 8000 ms: the child was killed";
  const MisuseOutcome o = misuse_outcome({128, 64}, r);
  EXPECT_EQ(o.status, MisuseOutcome::Status::timeout);
  EXPECT_EQ(o.message, r.message);
  EXPECT_EQ(o.c.count, 128);
}

TEST(NamedBarriersMisuse, ALostChildIsACrashEvenWithAnAnswer) {
  ChildResult r;
  r.status = ChildResult::Status::lost;
  r.output = "cuda_error whatever\n";
  r.message = "waitpid failed";
  EXPECT_EQ(misuse_outcome({48, 64}, r).status, MisuseOutcome::Status::crashed);
}

}  // namespace
}  // namespace cudasync::named_barriers
