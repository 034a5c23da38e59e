// The child-process runner every part that may fault or hang the GPU relies on (named-barriers'
// misuse part, lock's freed mutex): a child that answers, one that dies, one that hangs (the
// timeout must kill it and say so), one that cannot start. Shell scripts stand in for the binary.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "core/child_process.hpp"
#include "support/temp_dir.hpp"

namespace cudasync {
namespace {

using namespace std::chrono_literals;

struct FakeChild {
  std::string path;
  explicit FakeChild(const std::string& body) {
    path = ::testing::TempDir() + "cudasync_core_fake_child_" + std::to_string(getpid()) + ".sh";
    std::ofstream f(path);
    f << "#!/bin/sh\n" << body << "\n";
    f.close();
    chmod(path.c_str(), 0755);
  }
  ~FakeChild() { std::remove(path.c_str()); }
};

TEST(ChildProcess, TheOutTokenBecomesAFileTheChildAnswersIn) {
  // $1 is the file; the script writes its other arguments there.
  FakeChild fake(R"(test "$2" = lock || exit 9
echo "answer $2 $3" > "$1")");
  ChildProcess child(fake.path, {ChildProcess::kOutToken, "lock", "--x"}, 5000ms, "test");
  const ChildResult r = child.finish();
  EXPECT_EQ(r.status, ChildResult::Status::exited) << r.describe();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.output, "answer lock --x\n");
  EXPECT_TRUE(r.err.empty());
  EXPECT_GT(r.seconds, 0.0);
}

TEST(ChildProcess, TheGivenEnvironmentReplacesOrAddsToThisOnesAndKeepsTheRest) {
  setenv("CUDASYNC_TEST_KEPT", "kept", 1);
  setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
  FakeChild fake(R"(echo "$CUDA_VISIBLE_DEVICES $CUDASYNC_TEST_KEPT $CUDASYNC_TEST_ADDED" > "$1")");
  ChildProcess child(fake.path, {ChildProcess::kOutToken}, 5000ms, "test",
                     {"CUDA_VISIBLE_DEVICES=GPU-8a2f", "CUDASYNC_TEST_ADDED=added"});
  const ChildResult r = child.finish();
  unsetenv("CUDASYNC_TEST_KEPT");
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.output, "GPU-8a2f kept added\n");
}

TEST(ChildProcess, AChildThatDiesIsDescribedWithItsStderr) {
  FakeChild fake("echo 'cudasync: error: no usable GPU' >&2; exit 3");
  ChildProcess child(fake.path, {}, 5000ms, "test");
  const ChildResult r = child.finish();
  EXPECT_EQ(r.status, ChildResult::Status::exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.describe(), "exit 3: cudasync: error: no usable GPU");
}

TEST(ChildProcess, AChildKilledByASignalSaysWhich) {
  FakeChild fake("kill -SEGV $$");
  ChildProcess child(fake.path, {}, 5000ms, "test");
  const ChildResult r = child.finish();
  EXPECT_EQ(r.status, ChildResult::Status::signaled) << r.describe();
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_NE(r.describe().find("killed by signal"), std::string::npos) << r.describe();
}

TEST(ChildProcess, AHungChildIsKilledAtTheTimeout) {
  FakeChild fake("exec sleep 30");
  const auto start = std::chrono::steady_clock::now();
  ChildProcess child(fake.path, {}, 300ms, "test");
  const ChildResult r = child.finish();
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status, ChildResult::Status::timeout);
  EXPECT_NE(r.describe().find("300 ms"), std::string::npos) << r.describe();
  EXPECT_LT(took, 5s) << "the parent waited for the hung child instead of killing it";
  EXPECT_GE(took, 250ms);
}

TEST(ChildProcess, AChildNeverWaitedForIsKilledByTheDestructor) {
  FakeChild fake("exec sleep 30");
  const auto start = std::chrono::steady_clock::now();
  { ChildProcess child(fake.path, {}, 60000ms, "test"); }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(ChildProcess, AMissingExecutableIsReported) {
  const test::TempDir scratch;  // a program path nobody else can create
  const std::string missing = scratch.path + "/missing/cudasync";
  try {
    ChildProcess child(missing, {}, 2000ms, "test");
    const ChildResult r = child.finish();  // a C library that reports exec failures late: exit 127
    EXPECT_EQ(r.status, ChildResult::Status::exited);
    EXPECT_EQ(r.exit_code, 127);
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
}

TEST(ChildProcess, SelfExecutableIsThisTestBinary) {
  const std::string exe = self_executable();
  EXPECT_NE(exe.find("cudasync_core_tests"), std::string::npos) << exe;
}

}  // namespace
}  // namespace cudasync
