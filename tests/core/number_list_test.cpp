// whole_number: the strict parse the lessons' option checks share.
#include <gtest/gtest.h>

#include "core/number_list.hpp"

namespace cudasync {
namespace {

TEST(WholeNumber, TheWholeTextIsOneNumberOrNothing) {
  EXPECT_EQ(whole_number("128"), 128);
  EXPECT_EQ(whole_number("-5"), -5);
  EXPECT_EQ(whole_number("2000000000"), 2000000000LL);
  for (const char* bad : {"", "lots", "12x", "1e3", "1.5", "-", "99999999999999999999999"})
    EXPECT_FALSE(whole_number(bad).has_value()) << "'" << bad << "'";
}

TEST(WholeNumber, SplitAndJoinStillRoundTrip) {
  std::vector<long long> v;
  ASSERT_TRUE(split_numbers(join_numbers(std::vector<long long>{1, 2, -1}), v));
  EXPECT_EQ(v, (std::vector<long long>{1, 2, -1}));
}

}  // namespace
}  // namespace cudasync
