// "Did you mean": a mistyped command, option, option value or lesson gets the nearest name in a
// short error (exit 2), and a lesson's number in cudasync list is taken wherever its name is.
#include <gtest/gtest.h>

#include "core/cli/did_you_mean.hpp"
#include "support/run_cli.hpp"

using namespace cudasync;
using namespace cudasync::test;

TEST(DidYouMean, TheNearestNameWithinATypo) {
  const std::vector<std::string> commands = {"explain", "exercise", "progress", "devices", "list", "lock"};
  EXPECT_EQ(cli::did_you_mean("explian", commands), "explain");
  EXPECT_EQ(cli::did_you_mean("progres", commands), "progress");
  EXPECT_EQ(cli::did_you_mean("devce", commands), "devices");
  EXPECT_EQ(cli::did_you_mean("lst", commands), "list");
  EXPECT_EQ(cli::did_you_mean("bench", commands), "");    // too far from every name
  EXPECT_EQ(cli::did_you_mean("lock", commands), "");     // a name is no typo
  EXPECT_EQ(cli::did_you_mean("xyz", {"abc"}), "");
  EXPECT_EQ(cli::did_you_mean_text("warp-primitive", {"warp-primitives"}), " (did you mean warp-primitives?)");
}

TEST(DidYouMean, TheCommandLineNamesTheNearestInAFewWords) {
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"warp-primitive", "warp-primitive: no such command (did you mean warp-primitives?)"},
           {"progres", "progres: no such command (did you mean progress?)"},
           {"explian warp-primitives", "explian: no such command (did you mean explain?)"},
           {"devce", "devce: no such command (did you mean devices?)"},
           {"lock --pratt x", "--pratt: no such option for cudasync lock (did you mean --part?)"},
           {"lock --part warp-deadlok", "--part warp-deadlok: "},
           {"explain warp-primitive", "no such lesson (did you mean warp-primitives?)"},
           {"lock --part warp-deadlok", "(did you mean warp-deadlock?)"},
           {"exercise lokc", "no lesson with exercises (did you mean lock?)"},
       }) {
    SCOPED_TRACE(args);
    const CliResult r = run_cli(args + " --backend model");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_LE(r.err.size(), 400u) << r.err;  // a few lines
  }
}

TEST(LessonNumbers, ANumberIsTakenWhereverALessonNameIs) {
  const CliResult run = run_cli("3 --part bar-red --backend model");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("named-barriers"), std::string::npos);
  const CliResult ex = run_cli("exercise 1 --backend model");
  EXPECT_EQ(ex.exit_code, 0) << ex.err;
  EXPECT_NE(ex.out.find("warp-primitives"), std::string::npos);
  const CliResult explain = run_cli("explain 4 --no-pager");
  EXPECT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_NE(explain.out.find("threadfence"), std::string::npos);
  EXPECT_EQ(run_cli("check 1 9 0x0000001f --backend model").exit_code, 0);
  EXPECT_EQ(run_cli("exercise 9 --backend model").exit_code, 2);  // there are eight
}
