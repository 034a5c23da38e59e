// An option's bounds and stated default live in its lesson's manifest ("options" in
// lessons/<lesson>/lesson.json), and where a lesson's code sizes a buffer or a check by one, again as
// a C++ constant. This test holds the two together: a manifest whose bound moves without the code
// (or the code without the manifest) fails here, not at a student's run.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/course/built_in_manifest.hpp"
#include "techniques/cg_reduce/lesson.hpp"
#include "techniques/deadlock_demo/scenarios.hpp"
#include "techniques/lock/lesson.hpp"
#include "techniques/lock/locks.hpp"
#include "techniques/lockfree_barrier/lesson.hpp"
#include "techniques/multi_gpu/lesson.hpp"
#include "techniques/named_barriers/barriers.hpp"
#include "techniques/threadfence/lesson.hpp"

namespace {

using cudasync::course::built_in_manifest;

std::uint64_t max_of(const std::string& lesson, const std::string& option) {
  const auto* o = built_in_manifest(lesson).option(option);
  EXPECT_NE(o, nullptr) << lesson << " declares no " << option;
  return o ? o->max : 0;
}

std::uint64_t min_of(const std::string& lesson, const std::string& option) {
  const auto* o = built_in_manifest(lesson).option(option);
  return o ? o->min : 0;
}

template <class T>
std::uint64_t u(T v) {
  return static_cast<std::uint64_t>(v);
}

TEST(OptionBounds, EachManifestBoundIsTheCodesConstant) {
  namespace cg = cudasync::cg_reduce;
  EXPECT_EQ(max_of("cg-reduce", "--n"), u(cg::kMaxN));
  EXPECT_EQ(min_of("cg-reduce", "--sizes"), u(cg::kMinLog2Size));
  EXPECT_EQ(max_of("cg-reduce", "--sizes"), u(cg::kMaxLog2Size));

  namespace dd = cudasync::deadlock_demo;
  EXPECT_EQ(max_of("deadlock-demo", "--blocks"), u(dd::kMaxBlocks));
  EXPECT_EQ(max_of("deadlock-demo", "--deadline-ms"), u(dd::kMaxDeadlineMs));

  namespace lk = cudasync::lock;
  EXPECT_EQ(max_of("lock", "--blocks"), u(lk::kMaxBlocks));
  EXPECT_EQ(max_of("lock", "--threads"), u(lk::kMaxBlockThreads));
  EXPECT_EQ(max_of("lock", "--iterations"), u(lk::kMaxIters));
  EXPECT_EQ(max_of("lock", "--runs"), u(lk::kMaxRuns));
  EXPECT_EQ(max_of("lock", "--delays"), u(lk::kMaxDelayNs));

  namespace lf = cudasync::lockfree_barrier;
  EXPECT_EQ(max_of("lockfree-barrier", "--blocks"), u(lf::kMaxBlocks));
  EXPECT_EQ(max_of("lockfree-barrier", "--phases"), u(lf::kMaxPhases));
  EXPECT_EQ(max_of("lockfree-barrier", "--deadline-ms"), u(lf::kMaxDeadlineMs));

  namespace mg = cudasync::multi_gpu;
  EXPECT_EQ(max_of("multi-gpu", "--iterations"), u(mg::kMaxIterations));
  EXPECT_EQ(max_of("multi-gpu", "--phases"), u(mg::kMaxPhases));
  EXPECT_EQ(max_of("multi-gpu", "--blocks"), u(mg::kMaxBlocks));
  EXPECT_EQ(max_of("multi-gpu", "--mib"), u(mg::kMaxMib));
  EXPECT_EQ(max_of("multi-gpu", "--deadline-ms"), u(mg::kMaxDeadlineMs));
  EXPECT_EQ(max_of("multi-gpu", "--devices"), u(mg::kMaxDevice));

  namespace nb = cudasync::named_barriers;
  EXPECT_EQ(max_of("named-barriers", "--threads"), u(nb::kMaxBlockThreads));
  EXPECT_EQ(max_of("named-barriers", "--count"), u(nb::kMaxBlockThreads));

  namespace tf = cudasync::threadfence;
  EXPECT_EQ(max_of("threadfence", "--iterations"), u(tf::kMaxIterations));
}

}  // namespace
