// `cudasync litmus --sass` where the toolkit's nvdisasm is (the GPU machines): every instruction of
// the test has its SASS, and the acquire load and the release store are strong at GPU scope.
#include <gtest/gtest.h>

#include "core/litmus/litmus_sass.hpp"
#include "support/cli_expect.hpp"

using namespace cudasync::test;

TEST(LitmusSassGpu, EachInstructionHasTheSassTheCompilerMadeOfIt) {
  std::string looked;
  if (!cudasync::litmus::find_nvdisasm(looked)) GTEST_SKIP() << "no nvdisasm (looked in " << looked << ")";
  auto doc = valid_document("litmus mp+rel+acq.gpu --sass --json --backend model");
  ASSERT_TRUE(doc.contains("report"));
  auto& rows = doc["report"]["sections"]["sass"]["tables"]["instructions"]["rows"];
  ASSERT_EQ(rows.size(), 4u) << doc.dump(1);
  for (const auto& r : rows) EXPECT_NE(r["sass"].get<std::string>(), "-") << r.dump();
  EXPECT_NE(rows[1]["sass"].get<std::string>().find("ST"), std::string::npos) << rows[1].dump();   // st.release.gpu
  EXPECT_NE(rows[2]["sass"].get<std::string>().find("LD"), std::string::npos) << rows[2].dump();   // ld.acquire.gpu
}
