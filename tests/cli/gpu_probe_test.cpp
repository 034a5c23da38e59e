// Who asks the CUDA driver for the GPUs: a lesson or a course command on `--backend auto` or `gpu`,
// and the tools whose answer is about the GPUs (list, devices, doctor, bench). Never a run under
// `--backend model`, nor explain, sources or help: starting CUDA costs hundreds of milliseconds on
// a GPU machine (docs/measurements.md). -v logs the probe ("GPU probe: N ms"), so the log shows it.
#include <gtest/gtest.h>

#include "support/cli_expect.hpp"

namespace cudasync::test {
namespace {

bool probed(const std::string& args) {
  const CliResult r = run_cli(args + " -v");
  EXPECT_LE(r.exit_code, 1) << args << "\n" << shown(r);
  return contains(r.err, "GPU probe: ");
}

TEST(GpuProbe, ARunOnTheModelNeverAsksTheDriver) {
  for (const char* args : {"warp-primitives --backend model", "lock --backend model --part lock-class",
                           "tour --backend model", "exercise warp-primitives 1 --backend model"})
    EXPECT_FALSE(probed(args)) << args;
}

TEST(GpuProbe, TextsAndHelpNeverAskTheDriver) {
  for (const char* args : {"explain lock", "sources", "help lock"}) EXPECT_FALSE(probed(args)) << args;
}

TEST(GpuProbe, ALessonOnTheAutomaticBackendAsksOnce) {
  const CliResult r = run_cli("warp-primitives --part shfl -v");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_EQ(occurrences(r.err, "GPU probe: "), 1u) << r.err;
}

}  // namespace
}  // namespace cudasync::test
