// `cudasync litmus` on a GPU: the test compiled with NVRTC and run over fresh placements; the
// instances are all counted, and no outcome the PTX model forbids is seen (one would be a model
// or a hardware bug, reported loudly).
#include <gtest/gtest.h>

#include "core/litmus/litmus_library.hpp"
#include "support/cli_expect.hpp"
#include "support/gpu_available.hpp"

using namespace cudasync::test;

TEST(LitmusGpu, EveryLibraryTestRunsAndNoForbiddenOutcomeIsSeen) {
  CUDASYNC_REQUIRE_GPU();
  int ran = 0;
  bool first = true;
  for (const auto& t : cudasync::litmus::library()) {
    SCOPED_TRACE(t.name);
    const std::string args = "litmus " + t.name + " --runs 20 --json --backend gpu";
    nlohmann::ordered_json doc;
    if (first) {
      doc = valid_document(args);  // the schema, once
    } else {
      const CliResult r = run_cli(args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      doc = nlohmann::ordered_json::parse(r.out);
    }
    first = false;
    ASSERT_TRUE(doc.contains("report")) << doc.dump().substr(0, 400);
    auto& sections = doc["report"]["sections"];
    ASSERT_TRUE(sections.contains("gpu")) << sections.dump().substr(0, 400);
    auto& gpu = sections["gpu"];
    // A host thread: the model only, with a note saying why (no facts).
    if (!gpu.contains("facts") || !gpu["facts"].contains("instances")) continue;
    ++ran;
    EXPECT_EQ(gpu["facts"]["instances"]["value"].get<long long>(), 20 * 2048);
    if (t.outcome == "forbidden") {
      EXPECT_EQ(gpu["facts"]["seen"]["value"].get<long long>(), 0);
    }
  }
  EXPECT_GE(ran, 28);
}
