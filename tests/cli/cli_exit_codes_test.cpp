// The real binary, as a student runs it: exit codes (0 ok, 2 usage, 3 no GPU; see `--help`),
// error messages that name the bad input and what would be accepted, colour, and global
// options after the subcommand name.
#include <gtest/gtest.h>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "core/version.hpp"
#include "support/cli_expect.hpp"
#include "support/temp_dir.hpp"
#include "support/run_cli.hpp"

using cudasync::test::CliResult;
using cudasync::test::contains;
using cudasync::test::shown;
using cudasync::test::run_cli;
using cudasync::test::run_shell;
using cudasync::test::valid_document;

namespace {

bool has_escape(const std::string& s) { return contains(s, "\x1b["); }

std::string quoted_binary() { return "'" + cudasync::test::binary_path() + "'"; }

bool have_gpu() { return !cudasync::probe_gpus().devices.empty(); }

// Runs the binary with stdout on a pseudo-terminal (util-linux `script`), so that --color auto
// sees a terminal. Returns exit_code -1 when `script` is not installed.
CliResult run_on_tty(const std::string& env, const std::string& args) {
  if (run_shell("command -v script >/dev/null").exit_code != 0) return CliResult{};
  return run_shell(env + " script -qec \"" + quoted_binary() + " " + args + "\" /dev/null </dev/null");
}

struct RefusedArgs {
  const char* args;
  std::vector<const char*> err_has;  // the bad input, and what would be accepted
};

}  // namespace

// ---------------------------------------------------------------- exit 0

TEST(CliExitCodes, OkCommands) {
  struct Case {
    const char* args;
    const char* out_has;
  };
  const Case cases[] = {
      {"", "lessons"},  // `cudasync` alone lists the lessons
      {"list", "warp-primitives"},
      {"devices", "CUDA built in"},
      {"explain warp-primitives", "warp-primitives"},
      {"explain warp-primitives --lang zh", "(zh)"},
      {"explain warp-primitives --lang en", "(en)"},
      {"warp-primitives --backend model", "__shfl_down_sync"},
      {"warp-primitives --backend model --width 8 --threads 16 --part shfl,shfl-up,shfl-down,shfl-xor", "__shfl_xor_sync"},
  };
  for (const auto& c : cases) {
    const CliResult r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 0) << "cudasync " << c.args << "\n" << shown(r);
    EXPECT_TRUE(contains(r.out, c.out_has)) << "cudasync " << c.args << "\n" << shown(r);
    EXPECT_FALSE(contains(r.err, "error")) << "cudasync " << c.args << "\n" << shown(r);
  }
}

TEST(CliExitCodes, ModelRunShowsFansTable) {
  // Fan's warp.cu (block 16, width 8): shfl_xor with lane mask 1, the default, gives 1 0 3 2 5 4 7 6 ...
  const CliResult r = run_cli("warp-primitives --backend model --width 8 --threads 16 --part shfl-xor --color never");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, "__shfl_xor_sync(0xffffffff, v, 1, 8)")) << shown(r);
  bool found = false;
  for (std::size_t p = r.out.find("model"); p != std::string::npos; p = r.out.find("model", p + 1)) {
    const std::string line = r.out.substr(p, r.out.find('\n', p) - p);
    found = found || contains(line, "1  0  3  2  5  4  7  6  9  8 11 10 13 12 15 14");
  }
  EXPECT_TRUE(found) << shown(r);
  // A model run has no checks that could fail, and says it needs a GPU for the timings.
  const CliResult all = run_cli("warp-primitives --backend model --part cost");
  EXPECT_EQ(all.exit_code, 0) << shown(all);
  EXPECT_TRUE(contains(all.out, "needs a GPU")) << shown(all);
}

// ---------------------------------------------------------------- exit 2

TEST(CliExitCodes, UsageErrorsExit2AndSayWhatIsAccepted) {
  const RefusedArgs cases[] = {
      {"warp-primitives --width 5", {"--width", "5", "2", "4", "8", "16", "32"}},
      {"warp-primitives --delta 8 --width 8", {"--delta 8", "--width 8", "0..7"}},
      {"warp-primitives --mask 0xffff0000 --threads 16", {"0xffff0000", "16", "0-15"}},
      {"warp-primitives --mask zz", {"zz", "hex", "decimal"}},
      {"warp-primitives --part shfl_dwn", {"--part", "shfl_dwn", "shfl-down", "ballot"}},
      {"warp-primitives --part ballot --delta 3", {"--delta", "shfl-up", "shfl-down", "--part"}},
      {"warp-primitives --predicate 'lane<<3'", {"--predicate", "lane<<3", "lane<K", "even"}},
      {"warp-primitives --key 'lane%0'", {"--key", "lane%0", "lane%K", "K >= 1"}},
      {"warp-primitives --threads 33", {"--threads", "33", "1", "32"}},
      {"--color sometimes warp-primitives", {"--color", "sometimes", "auto", "always", "never"}},
      {"--backend cpu warp-primitives", {"--backend", "cpu", "auto", "gpu", "model"}},
      {"--device 0,1 warp-primitives", {"--device 0,1", "one GPU index", "--devices"}},
      {"warp-primitives --device first", {"--device first", "not a whole number", "0..1023"}},
      {"explain no-such-lesson", {"no-such-lesson", "warp-primitives"}},
      {"explain warp-primitives --lang fr", {"--lang", "fr", "en", "zh"}},
  };
  for (const auto& c : cases) {
    const CliResult r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << "cudasync " << c.args << "\n" << shown(r);
    EXPECT_TRUE(contains(r.err, "error")) << "cudasync " << c.args << "\n" << shown(r);
    for (const char* s : c.err_has)
      EXPECT_TRUE(contains(r.err, s)) << "cudasync " << c.args << ": stderr lacks '" << s << "'\n" << shown(r);
    // A usage error prints no report on stdout.
    EXPECT_FALSE(contains(r.out, "== ")) << "cudasync " << c.args << "\n" << shown(r);
  }
  // A --json file in a folder that is not there (inside this test's own: never a path another
  // process on the machine could create).
  const cudasync::test::TempDir scratch;
  const std::string missing = scratch.path + "/missing/x.json";
  const CliResult unwritable = run_cli("--json=" + missing + " warp-primitives");
  EXPECT_EQ(unwritable.exit_code, 2) << shown(unwritable);
  for (const std::string& part : {missing, std::string("writable"), std::string("--json")})
    EXPECT_TRUE(contains(unwritable.err, part)) << part << "\n" << shown(unwritable);
}

TEST(CliExitCodes, UnknownSubcommandExits2AndNamesIt) {
  const CliResult r = run_cli("frobnicate");
  EXPECT_EQ(r.exit_code, 2) << shown(r);
  EXPECT_TRUE(contains(r.err, "frobnicate")) << shown(r);
  EXPECT_TRUE(contains(r.err, "--help")) << shown(r);
}

TEST(CliExitCodes, UnknownSubcommandListsTheCommands) {
  const CliResult r = run_cli("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  for (const char* command : {"warp-primitives", "list", "devices", "explain"})
    EXPECT_TRUE(contains(r.err, command)) << shown(r);
}

TEST(CliExitCodes, NegativeDeltaIsAUsageError) {
  // A negative delta would make the model read lane -1 and shift a uint32_t by -1.
  const CliResult r = run_cli("warp-primitives --backend model --delta -1 --part shfl-down");
  EXPECT_EQ(r.exit_code, 2) << shown(r);
  EXPECT_TRUE(contains(r.err, "--delta")) << shown(r);
}

TEST(CliExitCodes, EnumErrorsNameOnlyTheAcceptedWords) {
  // CheckedTransformer prints the enum's numbers: "{auto->0,gpu->1,model->2} OR {0,1,2}", and
  // accepts them: `--color 1` means always.
  const CliResult r = run_cli("--color sometimes warp-primitives");
  const CliResult numeric = run_cli("--color 1 warp-primitives --part ballot");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(contains(r.err, "->")) << shown(r);
  EXPECT_TRUE(contains(r.err, "auto") && contains(r.err, "always") && contains(r.err, "never")) << shown(r);
  EXPECT_EQ(numeric.exit_code, 2);
}

TEST(CliExitCodes, BadOptionsAreUsageErrorsEvenWithBackendGpu) {
  // A command line that is wrong whatever the machine should say so (exit 2), not "no GPU" (3).
  const CliResult r = run_cli("--backend gpu warp-primitives --delta 8 --width 8");
  EXPECT_EQ(r.exit_code, 2) << shown(r);
  EXPECT_TRUE(contains(r.err, "--delta 8")) << shown(r);
}

// ---------------------------------------------------------------- --help, --version

TEST(CliExitCodes, HelpListsTheExitCodes) {
  for (const char* args : {"--help", "warp-primitives --help"}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << shown(r);
    EXPECT_TRUE(contains(r.out, "Exit codes:")) << args;
    for (const char* code : {"  0   ok", "  1   a check failed", "  2   usage error", "  3   no usable GPU", "  77  "})
      EXPECT_TRUE(contains(r.out, code)) << args << ": no '" << code << "'\n" << shown(r);
  }
  const CliResult top = run_cli("--help");
  for (const char* sub : {"warp-primitives", "list", "devices", "explain"}) EXPECT_TRUE(contains(top.out, sub)) << sub;
}

TEST(CliExitCodes, VersionSaysWhetherCudaIsBuiltIn) {
  const CliResult r = run_cli("--version");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, "cudasync ")) << shown(r);
  const bool cuda = cudasync::probe_gpus().built_with_cuda;
  if (cuda) {
    EXPECT_TRUE(contains(r.out, "CUDA: built in")) << shown(r);
  } else {
    EXPECT_TRUE(contains(r.out, "CUDA: not built in")) << shown(r);
  }
}

TEST(CliExitCodes, VersionSaysWhatIsLoadedAtRunTimeAndWhatFor) {
  // NCCL, NVRTC and md4c are dlopen'ed, never linked: --version says so rather than "built in".
  const CliResult r = run_cli("--version");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, cudasync::kNcclBuiltIn
                                  ? std::string("NCCL: loaded at run time (built against ") + cudasync::kNcclVersion + ")"
                                  : std::string("NCCL: not built in")))
      << shown(r);
  EXPECT_EQ(contains(r.out, "NVRTC: loaded at run time (libnvrtc.so."), cudasync::kCudaBuiltIn) << shown(r);
  EXPECT_TRUE(contains(r.out, "md4c: loaded at run time (libmd4c.so.0)")) << shown(r);
}

TEST(CliExitCodes, VersionAndDevicesSayWhetherNcclIsBuiltIn) {
  const CliResult r = run_cli("--version");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, cudasync::kNcclBuiltIn ? std::string("NCCL: loaded at run time") : std::string("NCCL: not built in")))
      << shown(r);
  // Without CUDA there is no NCCL build.
  if (!cudasync::kCudaBuiltIn) {
    EXPECT_FALSE(cudasync::kNcclBuiltIn);
  }
  const auto doc = valid_document("devices --json");
  const std::string nccl = doc["report"]["sections"]["host"]["facts"]["nccl-built-in"]["value"].get<std::string>();
  EXPECT_EQ(nccl.rfind(cudasync::kNcclBuiltIn ? "yes, " : "no", 0), 0u) << nccl;
  EXPECT_GE(doc["report"]["sections"]["host"]["facts"]["visible-gpus"]["value"].get<int>(), 0);
}

// ---------------------------------------------------------------- exit 3

TEST(CliExitCodes, GpuRequestsWithoutAGpu) {
  if (have_gpu()) {
    const CliResult r = run_cli("warp-primitives --device 99");
    EXPECT_EQ(r.exit_code, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, "--device 99")) << shown(r);
    EXPECT_TRUE(contains(r.err, "out of range")) << shown(r);
    return;
  }
  for (const char* args : {"warp-primitives --device 5", "--device 5 warp-primitives", "--backend gpu warp-primitives",
                           "warp-primitives --backend gpu"}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 3) << args << "\n" << shown(r);
    EXPECT_TRUE(contains(r.err, "no usable GPU")) << args << "\n" << shown(r);
  }
  // The error is also one JSON document when --json asked for one.
  const CliResult j = run_cli("--backend gpu warp-primitives --json");
  EXPECT_EQ(j.exit_code, 3) << shown(j);
  const auto doc = nlohmann::json::parse(j.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << shown(j);
  EXPECT_TRUE(contains(doc.dump(), "no_gpu")) << doc.dump(2);
}

TEST(CliExitCodes, ToolCommandsDoNotNeedAGpu) {
  // list / devices / explain choose no backend: --backend gpu does not make them fail.
  for (const char* args : {"--backend gpu list", "--backend gpu devices", "--backend gpu explain warp-primitives"}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << shown(r);
  }
}

// ---------------------------------------------------------------- colour

TEST(CliColor, NeverAndNoColorGiveNoEscapesAlwaysGivesSome) {
  const std::string args = "warp-primitives --backend model --width 8 --threads 16 --part shfl-down";
  const CliResult never = run_cli("--color never " + args);
  EXPECT_EQ(never.exit_code, 0) << shown(never);
  EXPECT_FALSE(has_escape(never.out));
  const CliResult no_color = run_shell("NO_COLOR=1 " + quoted_binary() + " " + args);
  EXPECT_EQ(no_color.exit_code, 0) << shown(no_color);
  EXPECT_FALSE(has_escape(no_color.out));
  const CliResult piped = run_cli(args);  // auto, stdout is a pipe
  EXPECT_FALSE(has_escape(piped.out));
  const CliResult always = run_cli("--color always " + args);
  EXPECT_EQ(always.exit_code, 0) << shown(always);
  EXPECT_TRUE(has_escape(always.out));
  const CliResult after = run_cli(args + " --color always");  // after the subcommand name too
  EXPECT_TRUE(has_escape(after.out));
  // --color always beats NO_COLOR.
  EXPECT_TRUE(has_escape(run_shell("NO_COLOR=1 " + quoted_binary() + " --color always " + args).out));
}

TEST(CliColor, OnATerminalAutoColoursUnlessNoColorOrDumb) {
  const std::string args = "warp-primitives --backend model --width 8 --threads 16 --part shfl-down";
  const CliResult tty = run_on_tty("TERM=xterm", args);
  if (tty.exit_code == -1) GTEST_SKIP() << "util-linux `script` is not installed: no pseudo-terminal";
  ASSERT_EQ(tty.exit_code, 0) << shown(tty);
  EXPECT_TRUE(has_escape(tty.out)) << shown(tty);
  EXPECT_FALSE(has_escape(run_on_tty("TERM=xterm NO_COLOR=1", args).out));
  EXPECT_FALSE(has_escape(run_on_tty("TERM=dumb", args).out));
  EXPECT_FALSE(has_escape(run_on_tty("TERM=xterm", "--color never " + args).out));
}

// ---------------------------------------------------------------- global options anywhere

TEST(CliGlobalOptions, AfterTheSubcommandName) {
  const CliResult r = run_cli("warp-primitives --backend model --json --part ballot");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  const auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << "stdout is not one JSON document\n" << shown(r);
  EXPECT_EQ(doc["backend"]["requested"], "model");
  EXPECT_EQ(doc["backend"]["used"], "model");
  EXPECT_EQ(doc["report"]["command"], "warp-primitives");
  // The same before the subcommand name.
  const CliResult before = run_cli("--backend model --json warp-primitives --part ballot");
  ASSERT_EQ(before.exit_code, 0) << shown(before);
  const auto doc2 = nlohmann::json::parse(before.out, nullptr, false);
  ASSERT_FALSE(doc2.is_discarded()) << shown(before);
  EXPECT_EQ(doc2["report"], doc["report"]);
}

TEST(CliGlobalOptions, SeedAfterTheSubcommandChangesRandomValues) {
  const std::string args = "warp-primitives --backend model --values random --part reduce-add --json";
  const auto a = nlohmann::json::parse(run_cli(args + " --seed 3").out, nullptr, false);
  const auto b = nlohmann::json::parse(run_cli(args + " --seed 3").out, nullptr, false);
  const auto c = nlohmann::json::parse(run_cli(args + " --seed 4").out, nullptr, false);
  ASSERT_FALSE(a.is_discarded());
  ASSERT_FALSE(c.is_discarded());
  EXPECT_EQ(a["report"], b["report"]);
  EXPECT_NE(a["report"], c["report"]);
}

TEST(CliGlobalOptions, JsonToAFile) {
  char path[] = "/tmp/cudasync_cli_test_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  const CliResult r = run_cli("warp-primitives --backend model --part ballot --color never --json=" + std::string(path));
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_TRUE(contains(r.out, "__ballot_sync")) << shown(r);  // the text still goes to stdout
  const auto doc = nlohmann::json::parse(cudasync::test::read_file(path), nullptr, false);
  std::remove(path);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["report"]["command"], "warp-primitives");
}
