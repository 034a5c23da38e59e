// The host watchdog: it reports what happened in time, gives up at its limit on what never does,
// and lets an error from the thing it watches through.
#include "core/watchdog.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace cudasync {
namespace {

using std::chrono::milliseconds;

TEST(Watchdog, ReportsDoneAsSoonAsItHappens) {
  int polls = 0;
  const Watch w = watch([&] { return ++polls == 3; }, milliseconds(5000));
  EXPECT_TRUE(w.done);
  EXPECT_EQ(polls, 3);
  EXPECT_LT(w.waited.count(), 1000);
}

TEST(Watchdog, GivesUpAtItsLimitOnWhatNeverHappens) {
  int polls = 0;
  const Watch w = watch([&] { return ++polls < 0; }, milliseconds(30), milliseconds(2));
  EXPECT_FALSE(w.done);
  EXPECT_GE(w.waited.count(), 30);
  EXPECT_GT(polls, 1);
}

TEST(Watchdog, PollsAtLeastOnceAndLetsAnErrorThrough) {
  int polls = 0;
  EXPECT_TRUE(watch([&] { return ++polls > 0; }, milliseconds(0)).done);
  EXPECT_EQ(polls, 1);
  EXPECT_THROW(watch([]() -> bool { throw std::runtime_error("the kernel trapped"); }, milliseconds(10)),
               std::runtime_error);
}

}  // namespace
}  // namespace cudasync
