// The misuse part's safety machinery, on the CPU: the child's arguments and one-line protocol, and
// what the parent makes of a child that answers, fails, or hangs (a stand-in shell script plays the
// child, run by core's ChildProcess). The process runner itself is tested in
// tests/core/child_process_test.cpp; how observed times become phases, in the judge test.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "core/parts/child.hpp"
#include "techniques/named_barriers/named_barriers_misuse_child.hpp"

namespace cudasync::named_barriers {
namespace {

using namespace std::chrono_literals;

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

// A stand-in for the cudasync binary: a shell script that gets the same arguments.
struct FakeChild {
  std::string path;
  explicit FakeChild(const std::string& body) {
    path = ::testing::TempDir() + "cudasync_fake_child_" + std::to_string(getpid()) + ".sh";
    std::ofstream f(path);
    f << "#!/bin/sh\n" << body << "\n";
    f.close();
    chmod(path.c_str(), 0755);
  }
  ~FakeChild() { std::remove(path.c_str()); }
  MisuseOutcome run(const MisuseCase& c, int id, std::chrono::milliseconds timeout) const {
    RunContext ctx;
    ctx.seed = 5;
    ChildProcess child(path, parts::child_args(ctx, "named-barriers", "misuse", misuse_child_args(c, id)), timeout,
                       "misuse_test");
    return misuse_outcome(c, child.finish());
  }
};

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
}

TEST(NamedBarriersMisuse, ChildAnswerIsRead) {
  // $5 is the answer file after --child-out; $7 and $9 are --count and --arrive, $11 the ids.
  FakeChild fake(R"(test "$1" = named-barriers || exit 9
test "$2" = --child || exit 9
test "$3" = misuse || exit 9
test "$4" = --child-out || exit 9
test "$7" = 48 || exit 9
test "$9" = 64 || exit 9
test "${11}" = 5,6 || exit 9
echo "ok count=$7 arrive=$9 arrive_ns=0,20000 leave_ns=20100,20090 rescue_ns=" > "$5")");
  const MisuseOutcome o = fake.run({48, 64}, 5, 5000ms);
  ASSERT_EQ(o.status, MisuseOutcome::Status::ok) << o.message;
  EXPECT_EQ(o.seen.c.count, 48);
  EXPECT_EQ(o.seen.leave_ns, (std::vector<long long>{20100, 20090}));
  EXPECT_GT(o.seconds, 0.0);
}

TEST(NamedBarriersMisuse, AChildThatDiesIsReportedWithItsStderr) {
  FakeChild fake("echo 'cudasync: error: no usable GPU' >&2; exit 3");
  const MisuseOutcome o = fake.run({48, 64}, 1, 5000ms);
  EXPECT_EQ(o.status, MisuseOutcome::Status::crashed);
  EXPECT_NE(o.message.find("exit 3"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("no usable GPU"), std::string::npos) << o.message;
}

TEST(NamedBarriersMisuse, AChildThatAnswersNonsenseIsACrash) {
  FakeChild fake(R"(echo "fine, thanks" > "$5")");
  const MisuseOutcome o = fake.run({48, 64}, 1, 5000ms);
  EXPECT_EQ(o.status, MisuseOutcome::Status::crashed);
  EXPECT_EQ(o.c.count, 48);
}

TEST(NamedBarriersMisuse, AHungChildIsKilledAtTheTimeout) {
  FakeChild fake("exec sleep 30");
  const auto start = std::chrono::steady_clock::now();
  const MisuseOutcome o = fake.run({128, 64}, 1, 300ms);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(o.status, MisuseOutcome::Status::timeout);
  EXPECT_NE(o.message.find("300 ms"), std::string::npos) << o.message;
  EXPECT_LT(took, 5s) << "the parent waited for the hung child instead of killing it";
  EXPECT_GE(took, 250ms);
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
