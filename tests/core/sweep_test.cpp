// core/sweep: the best row leaves out the baseline and the rows shown for reference only; the ratio
// tables against the baseline and against further rows named with versus().
#include <gtest/gtest.h>

#include <variant>

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

const report::Table* table(const report::Section& s, const std::string& id) {
  for (const auto& t : s.tables)
    if (t.id == id) return &t;
  return nullptr;
}

Sweep three_rows() {
  Sweep s("cost", "ns per step", report::Format::ns, Better::lower);
  s.rows("variant", {{"none", "none"}, {"fence", "fence"}, {"peer", "peer"}}).baseline("none").versus("peer");
  s.columns("shape", {{"one", "one"}});
  return s;
}

TEST(Sweep, VersusAddsARatioTableAgainstAPeer) {
  Sweep s = three_rows();
  s.run(true, [](std::size_t row, std::size_t) { return std::vector<double>{10.0 * static_cast<double>(row + 1)}; });
  ASSERT_TRUE(s.ratio_to(1, 0, 2).has_value());
  EXPECT_DOUBLE_EQ(*s.ratio_to(1, 0, 2), 20.0 / 30.0);
  EXPECT_DOUBLE_EQ(*s.ratio(1, 0), 2.0);
  report::Section sec("cost", "cost");
  s.add_to(sec, true);
  const report::Table* peer = table(sec, "vs-peer");
  ASSERT_NE(peer, nullptr);
  ASSERT_NE(table(sec, "vs-none"), nullptr);
  EXPECT_DOUBLE_EQ(std::get<double>(peer->cell(0, "one")), 10.0 / 30.0);
  EXPECT_EQ(sec.tables.size(), 4u) << "median, vs-none, vs-peer, best";
  EXPECT_EQ(sec.measurements.size(), 3u);
}

TEST(Sweep, WithoutAGpuEveryCellNeedsOne) {
  Sweep s = three_rows();
  s.run(false, [](std::size_t, std::size_t) -> std::vector<double> { throw std::logic_error("no GPU: not called"); });
  report::Section sec("cost", "cost");
  s.add_to(sec, false);
  EXPECT_TRUE(std::holds_alternative<report::NeedsGpu>(table(sec, "vs-peer")->cell(1, "one")));
  EXPECT_THROW(Sweep("x", "x", report::Format::ns, Better::lower).versus("nothing"), std::logic_error);
}

}  // namespace
}  // namespace cudasync::sweep
