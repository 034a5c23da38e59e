// What fuzzing the binary found, each case kept: nothing a student types crashes the tool, loses
// its results silently or is accepted when it should not be; --json delivers exactly one valid
// document or exits non-zero with a message on stderr; usage errors name the option, the value
// and what is accepted.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_expect.hpp"
#include "support/json_schema.hpp"
#include "support/run_cli.hpp"

namespace cudasync::test {
namespace {

using json = nlohmann::ordered_json;

// A path under the test's temporary folder, removed before and after.
struct TempPath {
  std::string path;
  explicit TempPath(const std::string& name)
      : path(::testing::TempDir() + "cudasync_hardening_" + std::to_string(getpid()) + "_" + name) {
    std::remove(path.c_str());
  }
  ~TempPath() { std::remove(path.c_str()); }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;
  bool exists() const { return access(path.c_str(), F_OK) == 0; }
};

// `text` is exactly one JSON document that validates; returns it.
json one_valid_document(const std::string& text, const std::string& context) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const std::exception& e) {
    ADD_FAILURE() << context << ": not exactly one JSON document: " << e.what() << "\n" << text.substr(0, 400);
    return doc;
  }
  EXPECT_EQ(schema_errors(doc), "") << context;
  return doc;
}

std::string error_kind(const json& doc) { return doc.contains("error") ? doc["error"]["kind"].get<std::string>() : ""; }

// ---------------------------------------------------------------- bytes that are not UTF-8

TEST(Hardening, NonUtf8ArgumentWithJsonGivesOneValidDocument) {
  // Used to abort (exit 134, nlohmann type_error 316) with no document.
  for (const char* args : {"list --json --seed $'\\xff'", "warp-primitives --json --mask $'\\xff'",
                           "--json warp-primitives --predicate $'x\\xc3'", "--json $'\\xff'",
                           "explain $'\\xff' --json", "warp-primitives --json --part $'\\xff'"}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << shown(r);
    const json doc = one_valid_document(r.out, args);
    EXPECT_EQ(error_kind(doc), "usage") << args;
    EXPECT_TRUE(contains(r.err, "\\xff") || contains(r.err, "\\xc3")) << "the message shows the byte\n" << shown(r);
    EXPECT_TRUE(contains(r.err, "U+FFFD")) << "stderr says the document replaced it\n" << shown(r);
  }
}

TEST(Hardening, NonUtf8JsonFileNameGetsItsDocument) {
  // Used to print the text report, leave an empty file and abort.
  TempPath f("x\xff.json");
  const CliResult r = run_cli("list --color never --json='" + f.path + "'");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  ASSERT_TRUE(f.exists());
  const json doc = one_valid_document(read_file(f.path), "the --json file");
  EXPECT_EQ(doc["report"]["command"], "list");
  EXPECT_TRUE(contains(r.err, "U+FFFD")) << shown(r);
  EXPECT_TRUE(contains(r.out, "lessons")) << shown(r);
}

// ---------------------------------------------------------------- writes that fail

TEST(Hardening, AJsonDocumentThatCannotBeWrittenIsAnError) {
  // Each used to exit 0 with the document lost.
  const char* cases[] = {"list --json=/dev/full", "list --json > /dev/full", "list --json >&-",
                         "warp-primitives --part ballot --json > /dev/full", "list > /dev/full", "list >&-",
                         "warp-primitives --width 3 --json > /dev/full", "--help > /dev/full"};
  for (const char* args : cases) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << shown(r);
    EXPECT_TRUE(contains(r.err, "error")) << args << "\n" << shown(r);
    EXPECT_TRUE(contains(r.err, "stdout") || contains(r.err, "/dev/full")) << args << "\n" << shown(r);
  }
}

TEST(Hardening, ClosedStdoutNeverSendsTheTextIntoTheJsonFile) {
  // With descriptor 1 closed, the --json file would be opened as descriptor 1 and the text report
  // written into it.
  TempPath f("closed_stdout.json");
  const CliResult r = run_cli("list --color never --json=" + f.path + " >&-");
  EXPECT_EQ(r.exit_code, 2) << shown(r);  // the text report was lost
  EXPECT_TRUE(contains(r.err, "stdout")) << shown(r);
  ASSERT_TRUE(f.exists());
  const json doc = one_valid_document(read_file(f.path), "the --json file");
  EXPECT_EQ(doc["report"]["command"], "list");
}

// ---------------------------------------------------------------- values refused

TEST(Hardening, SeedIsAWholeNumberIn64BitsNeverWrappedOrClamped) {
  for (const char* value : {"-1", "18446744073709551616", "99999999999999999999999", "''", "1.5", "0x10", "' 7'"}) {
    const std::string args = std::string("warp-primitives --part ballot --seed ") + value;
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << shown(r);
    EXPECT_TRUE(contains(r.err, "--seed")) << shown(r);
    EXPECT_TRUE(contains(r.err, "accepted: a whole number 0..18446744073709551615")) << shown(r);
  }
  EXPECT_EQ(run_cli("warp-primitives --part ballot --seed 18446744073709551615").exit_code, 0);
  EXPECT_EQ(run_cli("warp-primitives --part ballot --seed 0").exit_code, 0);
  // The seed reaches the run unchanged: the largest seed is not the same run as seed 0.
  const auto a = json::parse(run_cli("warp-primitives --part ballot --predicate random --json --seed 0").out);
  const auto b = json::parse(run_cli("warp-primitives --part ballot --predicate random --json --seed 18446744073709551615").out);
  EXPECT_NE(a["report"], b["report"]);
}

TEST(Hardening, DeviceIsAnIndexInItsRange) {
  for (const char* value : {"''", "2147483648", "-1", "1024", "x"}) {
    const std::string args = std::string("list --device ") + value;
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << shown(r);
    EXPECT_TRUE(contains(r.err, "--device")) << shown(r);
    EXPECT_TRUE(contains(r.err, "accepted: a whole number 0..1023")) << shown(r);
  }
}

// ---------------------------------------------------------------- --json edge cases

TEST(Hardening, EmptyJsonFileNameIsAUsageError) {
  // `--json=` used to mean no JSON at all, and a usage error then wrote no document.
  for (const char* args : {"--json= warp-primitives --width 3", "--json= list", "list --json="}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << shown(r);
    EXPECT_TRUE(contains(r.err, "--json= names no file")) << shown(r);
    EXPECT_TRUE(contains(r.err, "--json=FILE")) << shown(r);
    EXPECT_EQ(r.out, "") << args;
  }
}

TEST(Hardening, TheLastJsonWinsInEveryPath) {
  TempPath f("first.json");
  // A parse error used to follow the first --json, a run the last.
  for (const char* rest : {"warp-primitives --width 3", "list"}) {
    const std::string args = "--json=" + f.path + " --json " + rest;
    const CliResult r = run_cli(args);
    one_valid_document(r.out, args);
    EXPECT_FALSE(f.exists()) << args << ": the first --json was used";
  }
  for (const auto& [rest, code] : std::vector<std::pair<std::string, int>>{{"warp-primitives --width 3", 2}, {"list", 0}}) {
    const std::string args = "--json --color never --json=" + f.path + " " + rest;
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, code) << args << "\n" << shown(r);
    ASSERT_TRUE(f.exists()) << args;
    one_valid_document(read_file(f.path), args);
    // Text may hold braces (PTX's barrier{.cta}); a document on stdout would open a line with one.
    EXPECT_FALSE(r.out.rfind("{", 0) == 0 || contains(r.out, "\n{")) << args << ": a document on stdout too\n" << shown(r);
    std::remove(f.path.c_str());
  }
}

TEST(Hardening, HelpAndVersionDoNotCombineWithJson) {
  // They used to print text and exit 0, leaving --json without a document.
  for (const char* args : {"--help --json", "--version --json", "warp-primitives --help --json", "--json -h list",
                           "--cli-spec --json", "--json list --cli-spec", "--cli-spec=1 --json --json"}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << shown(r);
    const json doc = one_valid_document(r.out, args);
    EXPECT_EQ(error_kind(doc), "usage");
    EXPECT_TRUE(contains(r.err, "does not combine with --json")) << shown(r);
  }
  EXPECT_EQ(run_cli("--help").exit_code, 0);
  EXPECT_EQ(run_cli("--version").exit_code, 0);
}

// ---------------------------------------------------------------- "--"

// Found by fuzzing: after "--" the parser read an option where the tool read none, so
// `lock -- --json=out.json` exited 0 without a document and `lock -- --html=` printed HTML.
TEST(Hardening, AfterTwoDashesEveryWordIsAnArgumentNeverAnOption) {
  TempPath out("dashes.json");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"lock --backend model -- --json=" + out.path, "--json=" + out.path},
      {"lock --backend model -- --html=", "--html="},
      {"lock --backend model -- --html", "--html"},
      {"-- lock", "lock"},
      {"lock -- --help", "--help"},
      {"lock -- --version", "--version"},
      {"lock -- --cli-spec", "--cli-spec"},
      {"lock --backend model -- --backend gpu", "--backend"},
      {"check warp-primitives 1 --backend model -- -3 --json", "--json"},
      {"exercise --backend model -- warp-primitives 1 --hint", "--hint"},
  };
  for (const auto& [args, word] : cases) {
    SCOPED_TRACE(args);
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, word + ": unexpected after '--'")) << r.err;
    EXPECT_TRUE(contains(r.err, "accepted:")) << r.err;
    EXPECT_EQ(r.out, "") << "no report, no help, no definition";
    EXPECT_FALSE(out.exists());
  }
}

TEST(Hardening, AfterTwoDashesAWordMayStartWithADash) {
  // The answer -3 would read as an option without "--".
  const CliResult answer = run_cli("check warp-primitives 1 --backend model -- -3");
  EXPECT_EQ(answer.exit_code, 1) << "-3 is read and judged wrong\n" << shown(answer);
  EXPECT_TRUE(contains(answer.err, "-3 is not the answer")) << answer.err;
  EXPECT_EQ(run_cli("exercise --backend model -- warp-primitives 1").exit_code, 0);
  EXPECT_EQ(run_cli("help -- lock").exit_code, 0);
}

// ---------------------------------------------------------------- messages

TEST(Hardening, UsageErrorsNameTheOptionTheValueAndWhatIsAccepted) {
  const UsageCase cases[] = {
      // "Could not convert: --device = 2147483648"
      {"--device 2147483648 list", {"--device 2147483648", "accepted: a whole number 0..1023"}},
      // "--width: 2147483648"
      {"warp-primitives --width 2147483648", {"--width 2147483648", "accepted: one of 2, 4, 8, 16, 32"}},
      {"warp-primitives --threads 2147483648", {"--threads 2147483648", "accepted: a whole number 1..32"}},
      {"warp-primitives --threads", {"--threads needs a value", "accepted: a whole number 1..32"}},
      {"warp-primitives --delta abc", {"--delta abc", "accepted: a whole number 0..31"}},
      {"warp-primitives --frob 3", {"--frob", "no such option", "accepted:", "--width"}},
      {"--width 8", {"--width", "no such option", "warp-primitives"}},
      {"frobnicate", {"frobnicate", "no such command", "accepted:", "warp-primitives"}},
      {"--max-memory 5Q list", {"--max-memory 5Q", "accepted: a size"}},
      {"--color", {"--color needs a value", "accepted: one of auto, always, never"}},
  };
  for (const auto& c : cases) expect_usage_error(c);
}

// Found by fuzzing: 44 usage errors of 10,000 never said what is accepted.
TEST(Hardening, EveryUsageErrorSaysWhatIsAccepted) {
  const std::string long_fence(400, 'A');
  const UsageCase cases[] = {
      {"''", {"''", "no such command", "accepted: warp-primitives"}},
      {"lock ''", {"''", "unexpected argument", "accepted:"}},
      {"warp-primitives --mask 0", {"--mask 0", "accepted:"}},
      {"threadfence --fence device,none", {"--fence device,none", "accepted:"}},
      {"threadfence --fence none,none,none", {"--fence", "accepted:"}},
      {"lockfree-barrier --phases 1", {"--phases 1", "2..100000", "accepted:"}},
      {"lockfree-barrier --blocks 0", {"--blocks 0", "1..65536", "accepted:"}},
      {"lock --delays , --json", {"--delays ,: no item", "accepted: a whole number 1..1000000"}},
      {"lock --delays ,", {"--delays", "accepted: a whole number 1..1000000"}},
      // CLI11 read "--seed=" as no value at all and took the next word, --backend, as the seed.
      {"lock --seed= --backend model", {"--seed= gives no value", "accepted:", "a whole number 0.."}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const CliResult r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << shown(r);
    for (const char* s : c.err_has) EXPECT_TRUE(contains(r.err, s)) << "stderr lacks '" << s << "'\n" << r.err;
  }
  EXPECT_FALSE(contains(run_cli("lockfree-barrier --phases 1").err, "--phases 1: --phases 1")) << "said once";
  EXPECT_FALSE(contains(run_cli("lock --delays , --json").err, "--delays --json")) << "--json is not --delays' value";
  EXPECT_FALSE(contains(run_cli("lock --seed= --backend model").err, "--seed --backend")) << "nor --backend --seed's";
}

// Found by fuzzing: a value of 400 bytes was quoted in full, and the message was cut before
// "accepted:". A long value is shortened wherever the message quotes it.
TEST(Hardening, ALongValueIsShortenedSoThatWhatIsAcceptedStillShows) {
  const std::string a400(400, 'A'), digits(5000, '9');
  for (const std::string& args : {"threadfence --fence " + a400, "threadfence --fence device," + a400,
                                 "threadfence --test " + a400, "warp-primitives --mask " + a400,
                                 "warp-primitives --predicate lane\\<" + digits, "named-barriers --groups " + digits,
                                 "cg-reduce --n " + digits, "exercise " + a400, "check lock 1 " + a400,
                                 a400}) {
    SCOPED_TRACE(args.substr(0, 40));
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << shown(r);
    EXPECT_TRUE(contains(r.err, "accepted:")) << r.err;
    EXPECT_FALSE(contains(r.err, std::string(100, 'A'))) << "the value is shortened: " << r.err.size() << " bytes";
    EXPECT_FALSE(contains(r.err, std::string(100, '9'))) << "the value is shortened: " << r.err.size() << " bytes";
  }
}

TEST(Hardening, HelpStatesTheRangeOfCountsAndTheMemoryBound) {
  const CliResult r = run_cli("--help");
  EXPECT_TRUE(contains(r.out, "--device")) << r.out;
  EXPECT_TRUE(contains(r.out, "(0..1023)")) << r.out;
  EXPECT_TRUE(contains(r.out, "--max-memory")) << r.out;
  EXPECT_TRUE(contains(r.out, "default 1G")) << r.out;
  EXPECT_EQ(run_cli("--max-memory 4G list").exit_code, 0);
  EXPECT_EQ(run_cli("list --max-memory 1048576").exit_code, 0);
}

}  // namespace
}  // namespace cudasync::test
