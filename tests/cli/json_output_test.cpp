// The --json contract (schema/report-v2.json), held two ways:
//   JsonOutput*: the real binary, run as a user runs it; every document it writes must validate
//     against the schema, and agree with itself (summary counts, row keys) and with the run
//     (exit code, backend). Without a GPU lessons run on the model; with one, on the GPU: the
//     expectations follow probe_gpus(), never a hard-coded backend.
//   JsonContract: documents made by the renderer from hand-built reports, to cover shapes one
//     machine cannot produce (a GPU document on a CPU machine, every row mark, a failed check)
//     and to show that the schema rejects what breaks the contract.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/device_info.hpp"
#include "core/report/json_renderer.hpp"
#include "core/version.hpp"
#include "support/json_schema.hpp"
#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"

namespace cudasync::test {
namespace {

using json = nlohmann::ordered_json;  // parsed in order: the contract fixes the key order

const json& schema_json() {
  static const json s = json::parse(read_file(source_dir() + "/schema/report-v2.json"));
  return s;
}

bool have_gpu() {
  static const bool gpu = !probe_gpus().devices.empty();
  return gpu;
}

std::vector<std::string> keys_of(const json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

std::vector<std::string> split_words(const std::string& args) {
  std::istringstream in(args);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool is_lesson(const std::string& command) {
  return command != "list" && command != "devices" && command != "explain";
}

// A unique file for --json=FILE, removed at scope exit.
struct TempJsonFile {
  std::string path;
  explicit TempJsonFile(const std::string& tag)
      : path(::testing::TempDir() + "cudasync_json_" + tag + "_" + std::to_string(getpid()) + ".json") {
    std::remove(path.c_str());
  }
  ~TempJsonFile() { std::remove(path.c_str()); }
  TempJsonFile(const TempJsonFile&) = delete;
  TempJsonFile& operator=(const TempJsonFile&) = delete;
};

// `text` must be exactly one JSON document and nothing else: no log line before it, no second
// document after it (nlohmann's parse rejects trailing content), and it must validate.
void parse_document(const std::string& text, json& doc) {
  ASSERT_FALSE(text.empty()) << "no JSON written";
  ASSERT_EQ(text.front(), '{') << "the document must start the output:\n" << text.substr(0, 300);
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    FAIL() << "not exactly one JSON document: " << e.what() << "\n" << text.substr(0, 300);
  }
  ASSERT_TRUE(doc.is_object());
  ASSERT_FALSE(doc.empty());
  EXPECT_EQ(doc.begin().key(), "schema_version") << "schema_version must be the first key";
  EXPECT_EQ(schema_errors(doc), "") << "the document breaks schema/report-v2.json";
  // What every document says about the binary is what the binary was built with.
  EXPECT_EQ(doc["schema_version"], report::kSchemaVersion);
  EXPECT_EQ(doc["tool_version"], kToolVersion);
  EXPECT_EQ(doc["git_sha"], kGitSha);
  EXPECT_EQ(doc["cuda_built_in"], kCudaBuiltIn);
}

// Logs go to stderr: with --json on stdout, no stdout line may be a log line ("cudasync: ...").
void expect_no_log_lines(const std::string& out) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    EXPECT_NE(line.rfind("cudasync:", 0), 0u) << "a log line on stdout: " << line;
    EXPECT_NE(line.rfind("[", 0), 0u) << "a log line on stdout: " << line;  // spdlog's default pattern
  }
}

void expect_argv(const json& doc, const std::string& args) {
  ASSERT_TRUE(doc["argv"].is_array());
  ASSERT_FALSE(doc["argv"].empty());
  const std::string program = doc["argv"][0].get<std::string>();
  EXPECT_EQ(program, binary_path());
  std::vector<std::string> rest;
  for (std::size_t i = 1; i < doc["argv"].size(); ++i) rest.push_back(doc["argv"][i].get<std::string>());
  EXPECT_EQ(rest, split_words(args));
}

// The parts of a success document the schema cannot say: the summary counts what the sections
// hold, rows carry exactly their table's columns, a measurement's numbers fit its samples, the
// exit code follows the summary, and the backend is the one this machine allows.
void expect_consistent_report(const json& doc, int exit_code) {
  ASSERT_EQ(keys_of(doc), (std::vector<std::string>{"schema_version", "tool_version", "git_sha", "cuda_built_in",
                                                    "argv", "device", "backend", "report"}));
  const json& r = doc["report"];
  std::vector<std::string> report_keys{"command", "title", "sections", "waived", "summary"};
  if (r.contains("document")) report_keys.insert(report_keys.begin() + 4, "document");
  EXPECT_EQ(keys_of(r), report_keys);

  std::size_t passed = 0, failed = 0;
  for (const auto& [id, s] : r["sections"].items()) {
    EXPECT_EQ(s["id"], id) << "a section repeats the id it is keyed by";
    for (const auto& [check_id, c] : s["checks"].items()) {
      EXPECT_EQ(c["id"], check_id);
      (c["passed"].get<bool>() ? passed : failed) += 1;
    }
    for (const auto& [fact_id, f] : s["facts"].items()) {
      EXPECT_EQ(f["id"], fact_id);
      if (f["value"].is_string()) {  // numbers stay numbers: text never holds a grouped number
        const std::string v = f["value"].get<std::string>();
        const bool grouped_number = !v.empty() && v.find_first_not_of("0123456789,.") == std::string::npos &&
                                    v.find(',') != std::string::npos;
        EXPECT_FALSE(grouped_number) << "fact " << fact_id << " holds a number as text: " << v;
      }
    }
    for (const auto& t : s["tables"]) {
      std::vector<std::string> row_keys;
      for (const auto& c : t["columns"]) {
        EXPECT_NE(c["key"], "mark") << "a column named mark collides with the row mark in table " << t["id"];
        row_keys.push_back(c["key"].get<std::string>());
      }
      row_keys.push_back("mark");
      for (const auto& row : t["rows"]) EXPECT_EQ(keys_of(row), row_keys) << "table " << t["id"];
    }
    for (const auto& m : s["measurements"]) {
      EXPECT_EQ(m["repetitions"].get<std::size_t>(), m["samples"].size()) << m["id"];
      if (!m["samples"].empty()) {
        EXPECT_LE(m["min"].get<double>(), m["median"].get<double>()) << m["id"];
        EXPECT_LE(m["median"].get<double>(), m["max"].get<double>()) << m["id"];
      }
      // Only a run without a GPU leaves a measurement for lack of one.
      if (m["needs_gpu"].get<bool>()) {
        EXPECT_NE(doc["backend"]["used"], "gpu") << m["id"];
      }
    }
  }
  const json& summary = r["summary"];
  EXPECT_EQ(summary["checks_passed"].get<std::size_t>(), passed);
  EXPECT_EQ(summary["checks_failed"].get<std::size_t>(), failed);
  EXPECT_EQ(summary["waived"].get<std::size_t>(), r["waived"].size());

  int expected_exit = 0;
  if (failed > 0) expected_exit = 1;
  else if (r["sections"].empty() && !r["waived"].empty()) expected_exit = 77;
  EXPECT_EQ(exit_code, expected_exit) << "the exit code must follow the report's summary";

  const json& backend = doc["backend"];
  if (is_lesson(r["command"].get<std::string>())) {
    if (backend["requested"] == "auto") {
      EXPECT_EQ(backend["used"], have_gpu() ? "gpu" : "model");
      EXPECT_EQ(doc["device"].is_object(), have_gpu());
    }
    EXPECT_FALSE(backend["reason"].get<std::string>().empty());
  } else {
    EXPECT_TRUE(backend["used"].is_null()) << "tool commands run no backend";
    EXPECT_EQ(backend["reason"], "");
    EXPECT_TRUE(doc["device"].is_null());
  }
}

// A run whose stdout is a success document.
json run_success(const std::string& args) {
  const CliResult r = run_cli(args);
  json doc;
  [&] {
    ASSERT_NO_FATAL_FAILURE(parse_document(r.out, doc)) << "cudasync " << args << "\nstderr:\n" << r.err;
    ASSERT_TRUE(doc.contains("report")) << "cudasync " << args << " failed:\n" << doc.dump(2);
    expect_no_log_lines(r.out);
    expect_argv(doc, args);
    expect_consistent_report(doc, r.exit_code);
    if (is_lesson(doc["report"]["command"].get<std::string>()) && args.find("-q") == std::string::npos) {
      EXPECT_NE(r.err.find("cudasync: backend: "), std::string::npos) << "the backend log line belongs on stderr";
    }
  }();
  return doc;
}

std::vector<std::string> section_ids(const json& doc) {
  std::vector<std::string> ids;
  for (const auto& [id, s] : doc["report"]["sections"].items()) ids.push_back(id);
  return ids;
}

// ---------------------------------------------------------------------------------------------
// Success documents from the real binary

// One test per command line (plain TESTs, not TEST_P: CTest then lists them by a readable name).
void expect_success(const std::string& args, const std::string& command) {
  const json doc = run_success(args);
  if (::testing::Test::HasFailure()) return;
  EXPECT_EQ(doc["report"]["command"], command);
}

TEST(JsonOutputSuccess, List) { expect_success("list --json", "list"); }
TEST(JsonOutputSuccess, NoCommandIsList) { expect_success("--json", "list"); }

// The list numbers the lessons in course order, and says so.
TEST(JsonOutputSuccess, ListShowsTheCourseOrder) {
  const json doc = run_success("list --json");
  if (HasFailure()) return;
  const json& section = doc["report"]["sections"]["lessons"];
  const json& rows = section["tables"]["lessons"]["rows"];
  const std::vector<std::string> course = {"warp-primitives", "cg-reduce",        "named-barriers", "threadfence",
                                           "lock",            "lockfree-barrier", "deadlock-demo",  "multi-gpu"};
  ASSERT_EQ(rows.size(), course.size());
  for (std::size_t i = 0; i < course.size(); ++i) {
    EXPECT_EQ(rows[i]["order"].get<std::int64_t>(), static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(rows[i]["lesson"].get<std::string>(), course[i]);
  }
  bool says_so = false;
  for (const auto& p : section["paragraphs"])
    says_so = says_so || p.get<std::string>().find("course order") != std::string::npos;
  EXPECT_TRUE(says_so) << section["paragraphs"].dump();
}
TEST(JsonOutputSuccess, Devices) { expect_success("devices --json", "devices"); }
TEST(JsonOutputSuccess, ExplainEnglish) { expect_success("explain warp-primitives --json", "explain"); }
TEST(JsonOutputSuccess, ExplainChinese) { expect_success("explain warp-primitives --lang zh --json", "explain"); }
TEST(JsonOutputSuccess, WarpPrimitives) { expect_success("warp-primitives --json", "warp-primitives"); }
TEST(JsonOutputSuccess, JsonBeforeTheCommand) { expect_success("--json warp-primitives", "warp-primitives"); }
TEST(JsonOutputSuccess, ShflDownDelta3Width8) {
  expect_success("warp-primitives --part shfl-down --delta 3 --width 8 --json", "warp-primitives");
}
TEST(JsonOutputSuccess, Threads16Width8Mask) {
  expect_success("warp-primitives --threads 16 --width 8 --mask 0xffff --json", "warp-primitives");
}
TEST(JsonOutputSuccess, PartialMask) {
  expect_success("warp-primitives --threads 20 --mask 0xff00ff --width 16 --json", "warp-primitives");
}
TEST(JsonOutputSuccess, RandomValuesSeed7) {
  expect_success("warp-primitives --values random --seed 7 --json", "warp-primitives");
}
TEST(JsonOutputSuccess, SyncwarpRacy) {
  expect_success("warp-primitives --part syncwarp --variant racy --json", "warp-primitives");
}
TEST(JsonOutputSuccess, VotesAndMatch) {
  expect_success("warp-primitives --part ballot,any,match-any,match-all --predicate random --key lane/4 --json",
                 "warp-primitives");
}
TEST(JsonOutputSuccess, ShflAndXorLaneMask) {
  expect_success("warp-primitives --part shfl,shfl-xor --src-lane 5 --lane-mask 1 --width 4 --json", "warp-primitives");
}
TEST(JsonOutputSuccess, ReduceAndTrace) {
  expect_success("warp-primitives --part reduce-add,reduce-min,reduce-max,warp-reduce --json", "warp-primitives");
}
TEST(JsonOutputSuccess, Cost) { expect_success("warp-primitives --part cost --json", "warp-primitives"); }
TEST(JsonOutputSuccess, ModelBackend) { expect_success("warp-primitives --backend model --json", "warp-primitives"); }
TEST(JsonOutputSuccess, Verbose) { expect_success("-v -v warp-primitives --part ballot --json", "warp-primitives"); }
TEST(JsonOutputSuccess, Quiet) { expect_success("warp-primitives --part ballot --json -q", "warp-primitives"); }

TEST(JsonOutput, ExplainCarriesTheLessonAsADocument) {
  for (const char* args : {"explain warp-primitives --json", "explain warp-primitives --lang zh --json"}) {
    const json doc = run_success(args);
    if (HasFailure()) return;
    EXPECT_TRUE(doc["report"]["sections"].empty()) << args;
    ASSERT_TRUE(doc["report"].contains("document")) << args;
    EXPECT_FALSE(doc["report"]["document"].get<std::string>().empty()) << args;
  }
}

TEST(JsonOutput, PartSelectsTheSections) {
  EXPECT_EQ(section_ids(run_success("warp-primitives --part shfl-down --delta 3 --width 8 --json")),
            (std::vector<std::string>{"setup", "shfl-down"}));
  EXPECT_EQ(section_ids(run_success("warp-primitives --part syncwarp --variant racy --json")),
            (std::vector<std::string>{"setup", "syncwarp"}));
}

TEST(JsonOutput, ModelBackendIsDeterministic) {
  // The model backend runs the same way on every machine: same seed, same document.
  const std::string args = "warp-primitives --backend model --values random --seed 7 --json";
  json a = run_success(args);
  json b = run_success(args);
  if (HasFailure()) return;
  EXPECT_EQ(a["backend"]["used"], "model");
  EXPECT_TRUE(a["device"].is_null());
  EXPECT_EQ(a["report"]["summary"]["checks_failed"], 0);
  EXPECT_EQ(a, b);
  const json c = run_success("warp-primitives --backend model --values random --seed 8 --json");
  EXPECT_NE(a["report"], c["report"]) << "--seed must change random values";
}

TEST(JsonOutput, DevicesListsWhatTheProbeSees) {
  const json doc = run_success("devices --json");
  if (HasFailure()) return;
  const auto ids = section_ids(doc);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.front(), "host");
  EXPECT_EQ(ids.size(), 1 + probe_gpus().devices.size());
}

TEST(JsonOutput, MarksUsedByPartialMasksAreInTheSchema) {
  // 20 threads, half of them masked out: inactive lanes and undefined sources appear.
  const json doc = run_success("warp-primitives --threads 20 --mask 0xff00ff --width 16 --json");
  if (HasFailure()) return;
  std::vector<std::string> marks;
  for (const auto& s : doc["report"]["sections"])
    for (const auto& t : s["tables"])
      for (const auto& row : t["rows"]) marks.push_back(row["mark"].get<std::string>());
  for (const char* m : {"inactive", "undefined-source", "kept-own"})
    EXPECT_NE(std::find(marks.begin(), marks.end(), m), marks.end()) << m;
}

TEST(JsonOutput, VersionAgreesWithTheDocument) {
  const CliResult r = run_cli("--version");
  ASSERT_EQ(r.exit_code, 0);
  const json doc = run_success("list --json");
  EXPECT_EQ(r.out.rfind("cudasync " + doc["tool_version"].get<std::string>() + " (git " +
                            doc["git_sha"].get<std::string>() + ")",
                        0),
            0u)
      << r.out;
}

// ---------------------------------------------------------------------------------------------
// --json=FILE: the document goes to the file, the text tables stay on stdout

TEST(JsonOutput, JsonFileHoldsTheDocumentAndStdoutTheTables) {
  const TempJsonFile file("success");
  const CliResult r = run_cli("warp-primitives --part ballot --json=" + file.path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc;
  ASSERT_NO_FATAL_FAILURE(parse_document(read_file(file.path), doc));
  expect_consistent_report(doc, r.exit_code);
  EXPECT_EQ(section_ids(doc), (std::vector<std::string>{"setup", "ballot"}));
  // stdout: the text report, not JSON.
  EXPECT_FALSE(json::accept(r.out)) << r.out.substr(0, 300);
  EXPECT_NE(r.out.find(doc["report"]["title"].get<std::string>()), std::string::npos) << r.out.substr(0, 300);
  EXPECT_EQ(r.out.find("\"schema_version\""), std::string::npos);
}

TEST(JsonOutput, JsonFileHoldsTheErrorDocument) {
  const TempJsonFile file("error");
  const CliResult r = run_cli("warp-primitives --width 5 --json=" + file.path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  json doc;
  ASSERT_NO_FATAL_FAILURE(parse_document(read_file(file.path), doc));
  ASSERT_TRUE(doc.contains("error"));
  EXPECT_EQ(doc["error"]["kind"], "usage");
  EXPECT_EQ(doc["error"]["exit_code"], 2);
}

TEST(JsonOutput, UnwritableJsonFileIsAUsageError) {
  const TempDir scratch;
  const std::string missing = scratch.path + "/missing/cudasync/out.json";
  const CliResult r = run_cli("warp-primitives --json=" + missing);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("--json=" + missing), std::string::npos) << r.err;
}

// ---------------------------------------------------------------------------------------------
// Error documents from the real binary

void expect_error_document(const std::string& args, int exit_code, const std::vector<std::string>& kinds) {
  const CliResult r = run_cli(args);
  json doc;
  ASSERT_NO_FATAL_FAILURE(parse_document(r.out, doc)) << "cudasync " << args << "\nstderr:\n" << r.err;
  expect_no_log_lines(r.out);
  expect_argv(doc, args);
  ASSERT_EQ(keys_of(doc), (std::vector<std::string>{"schema_version", "tool_version", "git_sha", "cuda_built_in",
                                                    "argv", "error"}))
      << doc.dump(2);
  const json& e = doc["error"];
  EXPECT_EQ(keys_of(e), (std::vector<std::string>{"kind", "message", "exit_code"}));
  EXPECT_EQ(r.exit_code, exit_code) << r.err;
  EXPECT_EQ(e["exit_code"], r.exit_code) << "error.exit_code must be the process's exit status";
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), e["kind"].get<std::string>()), kinds.end()) << e["kind"];
  const std::string message = e["message"].get<std::string>();
  EXPECT_FALSE(message.empty());
  EXPECT_NE(r.err.find("cudasync: error: " + message), std::string::npos)
      << "stderr must say the same:\n" << r.err;
}

// Bad input: one error document on stdout, kind usage, exit code 2 in the document and the process.
TEST(JsonOutputUsageError, WidthNotAPowerOfTwo) {
  expect_error_document("warp-primitives --width 5 --json", 2, {"usage"});
}
TEST(JsonOutputUsageError, DeltaNotBelowWidth) {
  expect_error_document("--json warp-primitives --delta 9 --width 8", 2, {"usage"});
}
TEST(JsonOutputUsageError, UnknownPart) {
  expect_error_document("warp-primitives --part shfl-sideways --json", 2, {"usage"});
}
TEST(JsonOutputUsageError, BadMask) { expect_error_document("warp-primitives --mask 0xzz --json", 2, {"usage"}); }
TEST(JsonOutputUsageError, MaskNamesNoRunningThread) {
  expect_error_document("warp-primitives --threads 4 --mask 0xf0 --json", 2, {"usage"});
}
TEST(JsonOutputUsageError, ThreadsOutOfRange) {
  expect_error_document("warp-primitives --threads 33 --json", 2, {"usage"});
}
TEST(JsonOutputUsageError, UnknownVariant) {
  expect_error_document("warp-primitives --part syncwarp --variant sloppy --json", 2, {"usage"});
}
TEST(JsonOutputUsageError, UnknownPredicate) {
  expect_error_document("warp-primitives --predicate sometimes --json", 2, {"usage"});
}
TEST(JsonOutputUsageError, UnknownCommand) { expect_error_document("warp-primitivez --json", 2, {"usage"}); }
TEST(JsonOutputUsageError, UnknownOption) {
  expect_error_document("warp-primitives --frobnicate --json", 2, {"usage"});
}
TEST(JsonOutputUsageError, UnknownLessonToExplain) {
  expect_error_document("explain no-such-lesson --json", 2, {"usage"});
}
TEST(JsonOutputUsageError, UnknownLanguage) {
  expect_error_document("explain warp-primitives --lang xx --json", 2, {"usage"});
}
TEST(JsonOutputUsageError, UnknownBackend) {
  expect_error_document("--backend tpu warp-primitives --json", 2, {"usage"});
}

TEST(JsonOutput, BackendGpuWithoutAGpuIsANoGpuError) {
  if (have_gpu()) {
    const json doc = run_success("warp-primitives --backend gpu --part ballot --json");
    if (HasFailure()) return;
    EXPECT_EQ(doc["backend"]["requested"], "gpu");
    EXPECT_EQ(doc["backend"]["used"], "gpu");
    EXPECT_TRUE(doc["device"].is_object());
  } else {
    expect_error_document("warp-primitives --backend gpu --json", 3, {"no_gpu"});
  }
}

TEST(JsonOutput, DeviceOutOfRange) {
  // With GPUs, an index past them is bad input (2); with none at all, there is no GPU to pick (3).
  if (have_gpu()) expect_error_document("warp-primitives --device 999 --json", 2, {"usage"});
  else expect_error_document("warp-primitives --device 999 --json", 3, {"no_gpu"});
}

// ---------------------------------------------------------------------------------------------
// The renderer on hand-built reports, and what the schema refuses

DeviceInfo sample_device() {
  DeviceInfo d;
  d.index = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.shared_mem_per_sm = 233472;
  d.regs_per_sm = 65536;
  d.l2_bytes = 52428800;
  d.clock_khz = 1980000;
  d.cooperative_launch = true;
  return d;
}

// Every shape the report model can take: all marks, every kind of value, formats, measured and
// unmeasured (waived) measurements, a passed and a failed check, a waiver.
report::Report sample_report() {
  using report::Format;
  using report::RowMark;
  report::Report r;
  r.command = "warp-primitives";
  r.title = "a hand-built report";
  report::Section s("shfl-down", "shfl_down");
  s.paragraph("a paragraph");
  s.fact("mask", "mask", std::int64_t{0xffff}, Format::hex32);
  s.fact("lanes", "lanes", std::int64_t{0xffff}, Format::bin32, "lane 31 on the left");
  s.fact("ratio", "ratio", 0.5, Format::ratio);
  s.fact("stale", "stale reads", std::int64_t{1081344}, Format::count);
  s.fact("name", "name", std::string("x"));
  s.fact("undefined", "undefined", report::Undefined{}, Format::plain, "no value");
  s.fact("gpu-only", "gpu only", report::NeedsGpu{}, Format::ns);
  s.fact("flag", "flag", true);
  report::Table t("lanes", "what each lane received");
  t.column("thread", "thread").column("var", "var", Format::hex32).column("note", "note").column("ratio", "ratio", Format::ratio);
  t.column("gpu", "gpu", Format::ns);
  t.row({{"thread", 0}, {"var", 3}, {"note", "ok"}, {"ratio", 1.5}, {"gpu", report::NeedsGpu{}}}, RowMark::none);
  t.row({{"thread", 1}, {"note", ""}, {"ratio", 0.0}}, RowMark::inactive);
  t.row({{"thread", 2}, {"var", 2}, {"note", ""}, {"ratio", 0.0}}, RowMark::kept_own);
  t.row({{"thread", 3}, {"note", ""}, {"ratio", 0.0}}, RowMark::undefined_src);
  t.row({{"thread", 4}, {"var", 9}, {"note", "gpu 8"}, {"ratio", 0.0}}, RowMark::mismatch);
  t.legend = {"- undefined"};
  s.add(std::move(t));
  s.add(report::measured("shfl-xor", "__shfl_xor_sync", Format::cycles, {31.0, 30.0, 33.0}, true, "one shuffle"));
  s.add(report::measured("reduce-add", "__reduce_add_sync", Format::cycles, {}, true,
                         "waived: needs compute capability 8.0+"));
  s.add(report::measured("grid-sync", "grid.sync()", Format::ns, {}, false));
  s.agreement("gpu-agrees", "shfl_down", false, "lane 4 differs");
  s.check("sum-in-lane-0", "lane 0 holds the sum", true);
  s.note("a note");
  r.sections.push_back(std::move(s));
  r.waived.push_back({"reduce-add", "needs compute capability 8.0 or newer"});
  return r;
}

report::RunMeta gpu_meta() {
  report::RunMeta meta;
  meta.argv = {"cudasync", "warp-primitives", "--json"};
  meta.device = sample_device();
  meta.driver_version = 13000;
  meta.runtime_version = 12080;
  meta.backend_requested = "auto";
  meta.backend_used = "gpu";
  meta.backend_reason = "backend: gpu 0";
  return meta;
}

// A GPU document as a CUDA build writes it (the renderer writes this build's cuda_built_in).
json gpu_document() {
  json doc = report::document_json(sample_report(), gpu_meta());
  doc["cuda_built_in"] = true;
  return doc;
}

TEST(JsonContract, GpuDocumentWithEveryShapeValidates) {
  const json doc = gpu_document();
  EXPECT_EQ(schema_errors(doc), "");
  EXPECT_EQ(doc.begin().key(), "schema_version");
  EXPECT_EQ(doc["report"]["summary"], (json{{"checks_passed", 1}, {"checks_failed", 1}, {"waived", 1}}));
  EXPECT_EQ(doc["device"]["compute_capability"], "9.0");
  EXPECT_EQ(doc["device"]["driver_version"], "13.0");
}

TEST(JsonContract, ObjectsAreKeyedByIdAndNumbersStayNumbers) {
  const json doc = gpu_document();
  const json& s = doc["report"]["sections"]["shfl-down"];
  EXPECT_EQ(s["facts"]["stale"]["value"], 1081344);
  EXPECT_EQ(s["facts"]["stale"]["format"], "count");
  EXPECT_EQ(s["facts"]["ratio"]["value"], 0.5);
  EXPECT_TRUE(s["facts"]["gpu-only"]["value"].is_null());
  EXPECT_EQ(s["facts"]["gpu-only"]["needs_gpu"], true);
  EXPECT_EQ(s["tables"]["lanes"]["rows"][0]["var"], 3);
  EXPECT_TRUE(s["tables"]["lanes"]["rows"][1]["var"].is_null());
  EXPECT_EQ(s["tables"]["lanes"]["columns"][4]["needs_gpu"], true);
  EXPECT_EQ(s["checks"]["gpu-agrees"]["passed"], false);
  EXPECT_EQ(s["measurements"]["shfl-xor"]["median"], 31.0);
  EXPECT_EQ(s["measurements"]["shfl-xor"]["unit"], "cycles");
  EXPECT_EQ(s["measurements"]["grid-sync"]["needs_gpu"], true);
  EXPECT_EQ(doc["report"]["waived"]["reduce-add"]["reason"], "needs compute capability 8.0 or newer");
}

TEST(JsonContract, ARepeatedIdIsAProgrammingErrorNotADocument) {
  report::Report r = sample_report();
  r.sections.push_back(r.sections.front());
  EXPECT_THROW(report::document_json(r, gpu_meta()), std::logic_error);
}

TEST(JsonContract, ModelDocumentValidates) {
  report::RunMeta meta = gpu_meta();
  meta.device.reset();
  meta.backend_used = "model";
  const json doc = report::document_json(sample_report(), meta);
  EXPECT_EQ(schema_errors(doc), "");
  EXPECT_TRUE(doc["device"].is_null());
}

TEST(JsonContract, ErrorDocumentsForEveryKindValidate) {
  // The kinds and exit codes src/core/errors.hpp, src/core/cuda/check.hpp and app.cpp use.
  const std::pair<const char*, int> kinds[] = {
      {"usage", 2}, {"no_gpu", 3}, {"cuda", 3}, {"waived", 77}, {"internal", 1}};
  for (const auto& [kind, code] : kinds) {
    const json doc = report::error_document_json(kind, "what went wrong", code, gpu_meta());
    EXPECT_EQ(schema_errors(doc), "") << kind;
  }
}

// Each broken document fails validation, with an error at the place of the break ("/" for the
// document-level rules).
struct Breakage {
  const char* what;
  void (*apply)(json&);
  const char* path;
};

bool has_error_at(const std::string& errors, const std::string& path) {
  std::istringstream in(errors);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(path + ":", 0) == 0) return true;
  return false;
}

json& part(json& d) { return d["report"]["sections"]["shfl-down"]; }

TEST(JsonContract, SchemaRejectsBrokenSuccessDocuments) {
  const Breakage breakages[] = {
      {"unknown mark", [](json& d) { part(d)["tables"]["lanes"]["rows"][0]["mark"] = "odd"; },
       "/report/sections/shfl-down/tables/lanes/rows/0/mark"},
      {"object in a cell", [](json& d) { part(d)["tables"]["lanes"]["rows"][1]["var"] = json::object(); },
       "/report/sections/shfl-down/tables/lanes/rows/1/var"},
      {"row without mark", [](json& d) { part(d)["tables"]["lanes"]["rows"][2].erase("mark"); },
       "/report/sections/shfl-down/tables/lanes/rows/2"},
      {"unknown format", [](json& d) { part(d)["facts"]["mask"]["format"] = "oct"; },
       "/report/sections/shfl-down/facts/mask/format"},
      {"fact without format", [](json& d) { part(d)["facts"]["mask"].erase("format"); },
       "/report/sections/shfl-down/facts/mask"},
      {"measured without a median", [](json& d) { part(d)["measurements"]["shfl-xor"]["median"] = nullptr; },
       "/report/sections/shfl-down/measurements/shfl-xor"},
      {"unmeasured with a number", [](json& d) { part(d)["measurements"]["reduce-add"]["min"] = 1.0; },
       "/report/sections/shfl-down/measurements/reduce-add"},
      {"check without passed", [](json& d) { part(d)["checks"]["gpu-agrees"].erase("passed"); },
       "/report/sections/shfl-down/checks/gpu-agrees"},
      {"section id not kebab-case", [](json& d) { part(d)["id"] = "shfl_down"; }, "/report/sections/shfl-down/id"},
      {"sections as an array", [](json& d) { d["report"]["sections"] = json::array(); }, "/report/sections"},
      {"negative summary", [](json& d) { d["report"]["summary"]["waived"] = -1; }, "/report/summary/waived"},
      {"summary missing", [](json& d) { d["report"].erase("summary"); }, "/report"},
      {"extra report key", [](json& d) { d["report"]["extra"] = 1; }, "/report"},
      {"schema version 1", [](json& d) { d["schema_version"] = "1.0.0"; }, "/schema_version"},
      {"schema version not semver", [](json& d) { d["schema_version"] = "2.0"; }, "/schema_version"},
      {"git sha", [](json& d) { d["git_sha"] = "main"; }, "/git_sha"},
      {"empty argv", [](json& d) { d["argv"] = json::array(); }, "/argv"},
      {"unknown backend", [](json& d) { d["backend"]["used"] = "tpu"; }, "/backend/used"},
      {"extra device key", [](json& d) { d["device"]["color"] = "green"; }, "/device"},
      {"integer as string", [](json& d) { d["device"]["sm_count"] = "132"; }, "/device"},
      // The document-level anyOf: device and backend.used must tell the same story.
      {"gpu device, model backend", [](json& d) { d["backend"]["used"] = "model"; }, "/"},
      {"no device, gpu backend", [](json& d) { d["device"] = nullptr; }, "/"},
      {"gpu device in a model-only build", [](json& d) { d["cuda_built_in"] = false; }, "/"},
  };
  for (const auto& b : breakages) {
    json doc = gpu_document();
    b.apply(doc);
    const std::string errors = schema_errors(doc, "success_document");
    ASSERT_FALSE(errors.empty()) << b.what;
    EXPECT_TRUE(has_error_at(errors, b.path)) << b.what << ": no error at " << b.path << "\n" << errors;
    EXPECT_NE(schema_errors(doc), "") << b.what << ": the whole schema must refuse it too";
  }
}

TEST(JsonContract, SchemaAcceptsLaterMinorVersions) {
  json doc = gpu_document();
  doc["schema_version"] = "2.3.0";
  EXPECT_EQ(schema_errors(doc), "");
}

TEST(JsonContract, SchemaRejectsBrokenErrorDocuments) {
  const Breakage breakages[] = {
      {"exit code of another kind", [](json& d) { d["error"]["exit_code"] = 3; }, "/error"},
      {"exit code 0", [](json& d) { d["error"]["exit_code"] = 0; }, "/error/exit_code"},
      {"exit code as string", [](json& d) { d["error"]["exit_code"] = "2"; }, "/error/exit_code"},
      {"unknown kind", [](json& d) { d["error"]["kind"] = "oops"; }, "/error/kind"},
      {"missing message", [](json& d) { d["error"].erase("message"); }, "/error"},
      {"extra error key", [](json& d) { d["error"]["hint"] = "x"; }, "/error"},
      {"report beside error", [](json& d) { d["report"] = json::object(); }, "/"},
  };
  for (const auto& b : breakages) {
    json doc = report::error_document_json("usage", "bad input", 2, gpu_meta());
    b.apply(doc);
    const std::string errors = schema_errors(doc, "error_document");
    ASSERT_FALSE(errors.empty()) << b.what;
    EXPECT_TRUE(has_error_at(errors, b.path)) << b.what << ": no error at " << b.path << "\n" << errors;
    EXPECT_NE(schema_errors(doc), "") << b.what;
  }
}

TEST(JsonContract, SchemaFileSaysWhatItIsAndWhyObjectsAreKeyed) {
  // validate_json.py checks the schema itself against draft 2020-12 on every validation.
  const json& s = schema_json();
  EXPECT_EQ(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_TRUE(s.contains("$id"));
  EXPECT_TRUE(s.contains("title"));
  EXPECT_NE(s["description"].get<std::string>().find("keyed by their kebab-case id"), std::string::npos);
  EXPECT_EQ(s["oneOf"].size(), 2u);
}

}  // namespace
}  // namespace cudasync::test
