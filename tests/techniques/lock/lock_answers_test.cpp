// The combining lock's answer check: n fetch-and-add(1) answers must be 0 .. n-1, each once. A value
// given twice, one out of range, or a request that never got its answer (left at -1) must each be
// found and named by thread and request.
#include <gtest/gtest.h>

#include "techniques/lock/locks.hpp"

namespace cudasync::lock {
namespace {

TEST(LockAnswers, APermutationIsExact) {
  LockRun r;
  r.expected = r.count = r.completed = 6;
  check_answers({5, 0, 3, 1, 4, 2}, 3, r);
  EXPECT_EQ(r.answers_checked, 6);
  EXPECT_EQ(r.answers_bad, 0);
  EXPECT_TRUE(r.first_bad_answer.empty());
  EXPECT_TRUE(r.exact());
}

TEST(LockAnswers, ARepeatedValueIsNamedByThreadAndRequest) {
  LockRun r;
  r.expected = r.count = r.completed = 6;
  // Thread 0's second request and thread 1's first both got 3: two critical sections read the same
  // counter. The count is still 6, so only the answers show it.
  check_answers({0, 3, 2, 3, 4, 5}, 3, r);
  EXPECT_EQ(r.answers_bad, 1);
  EXPECT_EQ(r.first_bad_answer, "answer 3 returned twice (thread 0, request 2 and thread 1, request 1)");
  EXPECT_FALSE(r.exact());
}

TEST(LockAnswers, OutOfRangeAndUnansweredAreWrong) {
  LockRun r;
  r.expected = r.count = r.completed = 4;
  check_answers({0, 1, 7, -1}, 2, r);
  EXPECT_EQ(r.answers_bad, 2);
  EXPECT_EQ(r.first_bad_answer, "answer 7 is outside 0..3 (thread 1, request 1)");
  // A second check starts afresh.
  check_answers({1, 0, 3, 2}, 2, r);
  EXPECT_EQ(r.answers_bad, 0);
  EXPECT_TRUE(r.first_bad_answer.empty());
}

}  // namespace
}  // namespace cudasync::lock
