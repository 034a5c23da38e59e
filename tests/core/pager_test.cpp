// Which pager, as git chooses it (core/cli/pager.hpp).
#include <gtest/gtest.h>

#include "core/cli/pager.hpp"

using cudasync::cli::pager_command;

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
