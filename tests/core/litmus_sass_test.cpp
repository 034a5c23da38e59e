// Reading nvdisasm's line information (core/litmus/litmus_sass.hpp): each instruction goes to the
// file and line above it, its address dropped.
#include <gtest/gtest.h>

#include "core/litmus/litmus_sass.hpp"

using namespace cudasync::litmus;

TEST(LitmusSass, InstructionsGoToTheThreadAndLineAboveThem) {
  const std::string text =
      "        .text.cudasync_litmus:\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
      "\t//## File \"/work/main/P0\", line 5\n"
      "        /*0090*/                   STG.E desc[UR4][R2.64], R5 ;\n"
      "\t//## File \"P0\", line 6\n"
      "        /*00a0*/                   MEMBAR.SC.GPU ;\n"
      "        /*00b0*/                   ERRBAR;\n"
      "\t//## File \"P1\", line 5\n"
      "        /*0100*/                   LDG.E.STRONG.GPU R4, desc[UR4][R2.64] ;\n"
      "//--------------------- .nv.shared.reserved.0     --------------------------\n"
      "        /*0000*/                   NOT.CODE ;\n";
  const auto m = sass_by_line(text);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m.at({"P0", 5}), std::vector<std::string>{"STG.E desc[UR4][R2.64], R5"});
  EXPECT_EQ(m.at({"P0", 6}), (std::vector<std::string>{"MEMBAR.SC.GPU", "ERRBAR"}));
  EXPECT_EQ(m.at({"P1", 5}), std::vector<std::string>{"LDG.E.STRONG.GPU R4, desc[UR4][R2.64]"});
}
