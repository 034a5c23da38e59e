// Which pager, as git chooses it (core/cli/pager.hpp).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include "core/cli/pager.hpp"

using cudasync::cli::pager_command;
using cudasync::cli::pager_failure;

TEST(Pager, OnlyOnATerminalAndNotWithNoPager) {
  EXPECT_FALSE(pager_command(false, false, nullptr, nullptr, "xterm"));
  EXPECT_FALSE(pager_command(true, true, nullptr, nullptr, "xterm"));
  EXPECT_EQ(*pager_command(true, false, nullptr, nullptr, "xterm"), "less -FRX");
}

TEST(Pager, CudasyncPagerThenPager) {
  EXPECT_EQ(*pager_command(true, false, "most", "more", "xterm"), "most");
  EXPECT_EQ(*pager_command(true, false, nullptr, "more", "xterm"), "more");
}

TEST(Pager, EmptyOrCatMeansNone) {
  EXPECT_FALSE(pager_command(true, false, "", "less", "xterm"));
  EXPECT_FALSE(pager_command(true, false, "cat", nullptr, "xterm"));
  EXPECT_FALSE(pager_command(true, false, nullptr, " cat", "xterm"));
  EXPECT_FALSE(pager_command(true, false, nullptr, nullptr, "dumb"));  // no less on a dumb terminal
}

TEST(Pager, OnlyAPagerThatExitedZeroHasShownTheText) {
  EXPECT_FALSE(pager_failure(0));                                   // exit 0
  EXPECT_EQ(*pager_failure(1 << 8), "exited with status 1");        // PAGER=false
  EXPECT_EQ(*pager_failure(127 << 8), "could not be run");          // no such pager
  EXPECT_TRUE(pager_failure(SIGTERM)->find("signal") != std::string::npos);  // killed
}
