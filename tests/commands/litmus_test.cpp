// `cudasync litmus`: the library listed, a test judged, in JSON by ids; a bad file and an unknown
// name refused with exit 2 and what is accepted.
#include <gtest/gtest.h>

#include <fstream>

#include "support/cli_expect.hpp"
#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"

using namespace cudasync::test;

TEST(LitmusCommand, ListsTheLibraryAndJudgesATestByIds) {
  const auto list = valid_document("litmus list --json");
  EXPECT_GE(list["report"]["sections"]["library"]["tables"]["tests"]["rows"].size(), 30u);
  const auto doc = valid_document("litmus sb+fences.gpu --json");
  const auto& facts = doc["report"]["sections"]["model"]["facts"];
  EXPECT_EQ(facts["outcome"]["value"], "forbidden");
  EXPECT_EQ(facts["axiom"]["value"], "Causality");
  EXPECT_EQ(facts["dat3m"]["value"], "litmus/PTX/Manual/SB+sc-gpu.litmus");
  EXPECT_GT(facts["candidates"]["value"].get<long long>(), 0);
  EXPECT_FALSE(doc["report"]["sections"]["model"]["tables"]["cycle"]["rows"].empty());
  const auto zh = valid_document("litmus sb+fences.cta --json --lang zh");
  EXPECT_EQ(zh["report"]["sections"]["model"]["facts"]["outcome"]["value"], "allowed");
}

TEST(LitmusCommand, YourOwnFileAndWhatIsRefused) {
  const TempDir dir;
  const std::string file = dir.path + "/mine.litmus";
  std::ofstream(file) << "PTX mine\n{ x=0; }\n P0@cta 0,gpu 0 | P1@host ;\n st.relaxed.sys x, 1 | ld.acquire.sys r0, x ;\n"
                         "exists (P1:r0 == 1)\n";
  const auto doc = valid_document("litmus " + file + " --json");
  EXPECT_EQ(doc["report"]["sections"]["model"]["facts"]["outcome"]["value"], "allowed");
  std::ofstream(dir.path + "/bad.litmus") << "PTX bad\n{ x=0; }\n P0 ;\n st.relaxed x, 1 ;\nexists (x == 1)\n";
  const CliResult bad = run_cli("litmus " + dir.path + "/bad.litmus");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.litmus:4:2: st.relaxed needs a scope"), std::string::npos) << bad.err;
  const CliResult none = run_cli("litmus no-such-test");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("accepted: a library test (mp, "), std::string::npos) << none.err;
  EXPECT_EQ(run_cli("litmus show nope").exit_code, 2);
}
