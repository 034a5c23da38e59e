// core/sweep: the best row leaves out the baseline and the rows shown for reference only.
#include <gtest/gtest.h>

#include "core/sweep/sweep.hpp"

namespace cudasync::sweep {
namespace {

TEST(Sweep, AReferenceRowIsNeverTheBest) {
  Sweep s("bench", "ns per update", report::Format::ns, Better::lower);
  s.rows("lock", {{"book", "the book's lock"}, {"cas", "CAS"}, {"ticket", "ticket"}}).baseline("cas").reference("book");
  s.columns("grid", {{"132x1", "<<<132, 1>>>"}});
  s.run(true, [](std::size_t row, std::size_t) { return std::vector<double>{row == 0 ? 10.0 : row == 1 ? 100.0 : 50.0}; });
  ASSERT_TRUE(s.best(0).has_value());
  EXPECT_EQ(*s.best(0), 2u);  // the book's lock is faster, but only a reference
  EXPECT_DOUBLE_EQ(*s.ratio(0, 0), 0.1);
  EXPECT_THROW(s.reference("none"), std::logic_error);
}

}  // namespace
}  // namespace cudasync::sweep
