// The misuse part's safety machinery, on the CPU: the child's one-line protocol, how observed
// times become phases, and what the parent makes of a child that answers, fails, or hangs (a
// stand-in shell script plays the child). The process runner itself is tested in
// tests/core/child_process_test.cpp.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "techniques/named_barriers/named_barriers_misuse.hpp"

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

TEST(NamedBarriersMisuse, ObservedPhasesGroupWarpsReleasedTogether) {
  MisuseObservation o;
  o.c = {48, 64};
  // Warp 0 waited for warp 1: one phase of two warps.
  o.arrive_ns = {0, 20000};
  o.leave_ns = {20050, 20040};
  EXPECT_EQ(observed_phases(o), (std::vector<std::vector<int>>{{0, 1}}));
  // Warp 0 left at once: two phases of one warp.
  o.leave_ns = {40, 20040};
  EXPECT_EQ(observed_phases(o), (std::vector<std::vector<int>>{{0}, {1}}));
  // Arrival order, not warp order.
  o.c = {64, 96};
  o.arrive_ns = {40000, 0, 20000};
  o.leave_ns = {2100000, 20030, 20020};
  EXPECT_EQ(observed_phases(o), (std::vector<std::vector<int>>{{1, 2}, {0}}));
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
};

TEST(NamedBarriersMisuse, ChildArgumentsAndAnswer) {
  // $3 is the file after --misuse-child; the script answers with the arguments it was given.
  FakeChild fake(R"(test "$1" = named-barriers || exit 9
test "$2" = --misuse-child || exit 9
test "$5" = 48 || exit 9
test "$7" = 64 || exit 9
test "$9" = 5,6 || exit 9
echo "ok count=$5 arrive=$7 arrive_ns=0,20000 leave_ns=20100,20090 rescue_ns=" > "$3")");
  MisuseChild child(fake.path, {48, 64}, 5, 0, 5000ms);
  const MisuseOutcome o = child.finish();
  ASSERT_EQ(o.status, MisuseOutcome::Status::ok) << o.message;
  EXPECT_EQ(o.seen.c.count, 48);
  EXPECT_EQ(o.seen.leave_ns, (std::vector<long long>{20100, 20090}));
}

TEST(NamedBarriersMisuse, AChildThatDiesIsReportedWithItsStderr) {
  FakeChild fake("echo 'cudasync: error: no usable GPU' >&2; exit 3");
  MisuseChild child(fake.path, {48, 64}, 1, 0, 5000ms);
  const MisuseOutcome o = child.finish();
  EXPECT_EQ(o.status, MisuseOutcome::Status::crashed);
  EXPECT_NE(o.message.find("exit 3"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("no usable GPU"), std::string::npos) << o.message;
}

TEST(NamedBarriersMisuse, AHungChildIsKilledAtTheTimeout) {
  FakeChild fake("exec sleep 30");
  const auto start = std::chrono::steady_clock::now();
  MisuseChild child(fake.path, {128, 64}, 1, 0, 300ms);
  const MisuseOutcome o = child.finish();
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(o.status, MisuseOutcome::Status::timeout);
  EXPECT_NE(o.message.find("300 ms"), std::string::npos) << o.message;
  EXPECT_LT(took, 5s) << "the parent waited for the hung child instead of killing it";
  EXPECT_GE(took, 250ms);
}

}  // namespace
}  // namespace cudasync::named_barriers
