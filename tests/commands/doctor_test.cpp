// cudasync doctor: made-up machines through doctor_report() (no driver, an old driver, an H100, a
// GPU this build has no code for, a model-only build), and the real binary on this machine: exit 0
// whenever the lessons can run (here: on the model), 3 with --backend gpu and no usable GPU, and a
// JSON document of the report-v2 schema.
#include <gtest/gtest.h>

#include "commands/doctor_report.hpp"
#include "core/nvidia_driver.hpp"
#include "core/version.hpp"
#include "core/words/language.hpp"
#include "core/words/words.hpp"
#include "support/cli_expect.hpp"

using namespace cudasync;
using commands::DoctorFacts;

namespace {

const char* kDefaultArchs = "75-real;80-real;86-real;89-real;90-real;90-virtual";

DeviceInfo h100() {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.cooperative_launch = true;
  return d;
}

DoctorFacts cuda_build() {
  DoctorFacts f;
  f.cuda_built_in = true;
  f.toolkit_version = "13.0.88";
  f.cuda_architectures = kDefaultArchs;
  f.probe.built_with_cuda = true;
  f.probe.runtime_version = 13000;
  f.lessons = {"warp-primitives", "cg-reduce", "lockfree-barrier", "deadlock-demo"};
  // As their manifests give them (lessons/<lesson>/lesson.json).
  f.lesson_needs = {
      {"warp-primitives", "cc80", "__reduce_*_sync (one REDUX instruction, compute capability 8.0+)"},
      {"warp-primitives", "sanitizer", "the racecheck run of the racy __syncwarp loop"},
      {"cg-reduce", "cooperative-launch", "the grid.sync() rung"},
      {"lockfree-barrier", "cooperative-launch", "grid.sync() and the co-residency limit"},
      {"lockfree-barrier", "clusters", "the thread-block cluster barriers (sm_90)"},
      {"deadlock-demo", "sanitizer", "--sanitize (compute-sanitizer --tool synccheck)"},
  };
  return f;
}

DoctorFacts lab_h100() {
  DoctorFacts f = cuda_build();
  f.driver_found = true;
  f.driver_release = "580.65.06";
  f.probe.driver_version = 13000;
  f.probe.devices = {h100()};
  f.listing_embedded = true;
  f.cuobjdump = "/usr/local/cuda/bin/cuobjdump";
  f.nvdisasm = "/usr/local/cuda/bin/nvdisasm";
  f.compute_sanitizer = "/usr/local/cuda/bin/compute-sanitizer";
  f.nvrtc = "libnvrtc.so.13";
  f.md4c = true;
  return f;
}

// The row of table `table` in section `section` whose first column holds `key`.
const report::Row* row(const report::Report& r, const char* section, const char* table, const std::string& key) {
  const report::Section* s = r.section(section);
  if (!s) return nullptr;
  for (const auto& t : s->tables)
    if (t.id == table)
      for (const auto& row : t.rows)
        if (std::get<std::string>(row.cells[0]) == key) return &row;
  return nullptr;
}

std::string cell_text(const report::Report& r, const char* section, const char* table, const std::string& key,
                      std::size_t column) {
  const report::Row* x = row(r, section, table, key);
  if (!x) return "(no row " + key + ")";
  const auto* s = std::get_if<std::string>(&x->cells[column]);
  return s ? *s : "(not text)";
}

bool piece_ok(const report::Report& r, const std::string& piece) {
  const report::Row* x = row(r, "machine", "pieces", piece);
  return x && std::holds_alternative<bool>(x->cells[1]) && std::get<bool>(x->cells[1]);
}

std::string fact_text(const report::Report& r, const char* section, const char* fact) {
  for (const auto& f : r.section(section)->facts)
    if (f.id == fact) return std::get<std::string>(f.value);
  return "(no fact)";
}

}  // namespace

TEST(DoctorReport, AnH100LabMachineRunsEveryLessonOnTheGpu) {
  const DoctorFacts f = lab_h100();
  EXPECT_TRUE(commands::gpu_usable(f));
  const report::Report r = commands::doctor_report(f);
  EXPECT_NE(fact_text(r, "summary", "lessons-run-on").find("NVIDIA H100"), std::string::npos);
  EXPECT_EQ(fact_text(r, "summary", "minimum-driver"), "CUDA 13.x: NVIDIA driver R580 or newer");
  for (const char* p : {"gpu-backend", "nvidia-driver", "gpu", "gpu-code", "compute-8-0", "cooperative-launch", "clusters",
                        "ptx-sass-listing", "cuobjdump", "nvdisasm", "compute-sanitizer", "nvrtc", "md4c"})
    EXPECT_TRUE(piece_ok(r, p)) << p;
  EXPECT_FALSE(piece_ok(r, "multi-gpu"));  // one GPU, no NCCL
  EXPECT_EQ(cell_text(r, "machine", "pieces", "gpu-code", 3), "sm_90 SASS");
  EXPECT_EQ(cell_text(r, "lessons", "lessons", "lockfree-barrier", 2), "nothing");
  EXPECT_EQ(cell_text(r, "lessons", "lessons", "lockfree-barrier", 1), "GPU + model");
}

TEST(DoctorReport, NoDriverSaysSoAndWhatToInstall) {
  DoctorFacts f = cuda_build();
  f.probe.reason = no_driver_message();
  EXPECT_FALSE(commands::gpu_usable(f));
  const report::Report r = commands::doctor_report(f);
  EXPECT_EQ(cell_text(r, "machine", "pieces", "nvidia-driver", 3), "no NVIDIA driver found (libcuda.so.1 cannot be loaded)");
  EXPECT_NE(cell_text(r, "machine", "install", "nvidia-driver", 1).find("R580"), std::string::npos);
  EXPECT_NE(fact_text(r, "summary", "lessons-run-on").find("reference model"), std::string::npos);
  EXPECT_EQ(cell_text(r, "lessons", "lessons", "cg-reduce", 1), "reference model");
  // Without a GPU, GPU features are "needs a GPU", not missing: nothing to install for them.
  EXPECT_EQ(row(r, "machine", "install", "clusters"), nullptr);
  // md4c, loaded at run time like the driver: missing, explain still works, and says what to install.
  EXPECT_FALSE(piece_ok(r, "md4c"));
  EXPECT_NE(cell_text(r, "machine", "install", "md4c", 1).find("libmd4c0"), std::string::npos);
}

TEST(DoctorReport, AnOldDriverGivesBothVersionsAndTheMinimum) {
  DoctorFacts f = lab_h100();
  f.driver_release = "550.54.15";
  f.probe.driver_version = 12040;
  f.probe.devices.clear();
  f.probe.reason = old_driver_message(12040, 13000);
  EXPECT_FALSE(commands::gpu_usable(f));
  const report::Report r = commands::doctor_report(f);
  const std::string here = cell_text(r, "machine", "pieces", "nvidia-driver", 3);
  for (const char* part : {"550.54.15", "CUDA 12.4", "CUDA 13.0 runtime", "R580"})
    EXPECT_NE(here.find(part), std::string::npos) << part << " in " << here;
}

TEST(DoctorReport, AnAmpereGpuLacksClustersOnlyWhereALessonUsesThem) {
  DoctorFacts f = lab_h100();
  f.probe.devices.front().name = "NVIDIA A100-SXM4-40GB";
  f.probe.devices.front().cc_major = 8;
  const report::Report r = commands::doctor_report(f);
  EXPECT_FALSE(piece_ok(r, "clusters"));
  EXPECT_NE(cell_text(r, "lessons", "lessons", "lockfree-barrier", 2).find("thread-block clusters"), std::string::npos);
  EXPECT_EQ(cell_text(r, "lessons", "lessons", "warp-primitives", 2), "nothing");
}

TEST(DoctorReport, MultiGpuNeedsTwoGpusAndNcclBuiltInAndLoadable) {
  DoctorFacts f = lab_h100();
  f.lessons.push_back("multi-gpu");
  f.lesson_needs.push_back({"multi-gpu", "two-gpus", "peer-flag, barrier, all-reduce and --bench"});
  f.nccl = "libnccl.so.2";
  f.nccl_built_in = true;
  // One GPU: the lesson lacks the second one (its host-flag part still runs).
  report::Report r = commands::doctor_report(f);
  EXPECT_FALSE(piece_ok(r, "multi-gpu"));
  EXPECT_EQ(cell_text(r, "machine", "pieces", "multi-gpu", 2), "multi-gpu");
  EXPECT_EQ(cell_text(r, "machine", "pieces", "multi-gpu", 3), "1 GPU, NCCL found (libnccl.so.2)");
  EXPECT_EQ(cell_text(r, "machine", "install", "multi-gpu", 1), "a second GPU");
  EXPECT_NE(cell_text(r, "lessons", "lessons", "multi-gpu", 2).find("several GPUs and NCCL"), std::string::npos);
  // Two GPUs and NCCL: nothing lacking.
  f.probe.devices.push_back(h100());
  f.probe.devices.back().index = 1;
  r = commands::doctor_report(f);
  EXPECT_TRUE(piece_ok(r, "multi-gpu"));
  EXPECT_EQ(cell_text(r, "lessons", "lessons", "multi-gpu", 2), "nothing");
  // A build without nccl.h cannot use the library it finds.
  f.nccl_built_in = false;
  r = commands::doctor_report(f);
  EXPECT_FALSE(piece_ok(r, "multi-gpu"));
  EXPECT_NE(cell_text(r, "machine", "pieces", "multi-gpu", 3).find("not built into this cudasync"), std::string::npos);
  EXPECT_NE(cell_text(r, "machine", "install", "multi-gpu", 1).find("built with nccl.h"), std::string::npos);
}

TEST(DoctorReport, WithoutNvrtcTheKernelExercisesAreNamedAsWhatIsLacking) {
  DoctorFacts f = lab_h100();
  f.nvrtc.reset();
  f.nvrtc_missing = "libnvrtc.so.13 cannot be loaded (tried libnvrtc.so.13, libnvrtc.so)";
  f.kernel_exercises = {{"warp-primitives", {10}}, {"cg-reduce", {6, 7}}};
  const report::Report r = commands::doctor_report(f);
  EXPECT_FALSE(piece_ok(r, "nvrtc"));
  EXPECT_EQ(cell_text(r, "machine", "pieces", "nvrtc", 2), "warp-primitives, cg-reduce");
  EXPECT_EQ(cell_text(r, "machine", "pieces", "nvrtc", 3), f.nvrtc_missing);
  EXPECT_NE(cell_text(r, "machine", "install", "nvrtc", 1).find("cuda-nvrtc-13-0"), std::string::npos)
      << cell_text(r, "machine", "install", "nvrtc", 1);
  EXPECT_EQ(cell_text(r, "lessons", "lessons", "warp-primitives", 2),
            "NVRTC (run-time compilation) for exercise 10 (a kernel you write, compiled with NVRTC)");
  EXPECT_NE(cell_text(r, "lessons", "lessons", "cg-reduce", 2).find("exercises 6 and 7 (a kernel you write"),
            std::string::npos)
      << cell_text(r, "lessons", "lessons", "cg-reduce", 2);
  // With NVRTC the same lessons lack nothing of it.
  f.nvrtc = "libnvrtc.so.13";
  EXPECT_EQ(cell_text(commands::doctor_report(f), "lessons", "lessons", "warp-primitives", 2), "nothing");
}

TEST(DoctorReport, TheCodeThisBuildCarriesForEachGpu) {
  EXPECT_EQ(commands::gpu_code_for(90, kDefaultArchs), "sm_90 SASS");
  EXPECT_EQ(commands::gpu_code_for(87, kDefaultArchs), "sm_86 SASS (binary compatible)");
  EXPECT_EQ(commands::gpu_code_for(100, kDefaultArchs), "compute_90 PTX, compiled by the driver at first launch");
  EXPECT_EQ(commands::gpu_code_for(70, kDefaultArchs), "");
  EXPECT_EQ(commands::gpu_code_for(75, "75"), "sm_75 SASS");
  EXPECT_EQ(commands::gpu_code_for(80, "75"), "compute_75 PTX, compiled by the driver at first launch");
  DoctorFacts f = lab_h100();
  f.probe.devices.front().cc_major = 7;
  f.probe.devices.front().cc_minor = 0;
  EXPECT_FALSE(commands::gpu_usable(f));
  const report::Report r = commands::doctor_report(f);
  EXPECT_FALSE(piece_ok(r, "gpu-code"));
}

TEST(DoctorReport, AModelOnlyBinaryRunsOnTheModel) {
  DoctorFacts f;
  f.lessons = {"warp-primitives"};
  f.probe.reason = words::say_both("core", "driver.built-without-cuda");
  const report::Report r = commands::doctor_report(f);
  EXPECT_FALSE(piece_ok(r, "gpu-backend"));
  EXPECT_EQ(fact_text(r, "summary", "minimum-driver"), "none: a model-only binary");
  EXPECT_NE(cell_text(r, "machine", "install", "gpu-backend", 1).find("CUDA 13.0"), std::string::npos);
}

TEST(DoctorCli, ExitsZeroWhenTheLessonsCanRunAndGivesOneDocument) {
  const auto doc = test::valid_document("doctor --json", 0);
  ASSERT_TRUE(doc.contains("report")) << doc.dump();
  const auto& pieces = doc["report"]["sections"]["machine"]["tables"]["pieces"]["rows"];
  bool driver_row = false;
  for (const auto& p : pieces) driver_row = driver_row || p["piece"] == "nvidia-driver";
  EXPECT_TRUE(driver_row);
  EXPECT_EQ(doc["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"][0]["lesson"], "warp-primitives");
}

TEST(DoctorCli, WithoutAGpuBackendGpuExitsThreeAndSaysWhy) {
  if (!probe_gpus().devices.empty()) GTEST_SKIP() << "this machine has a GPU";
  const auto r = test::run_cli("doctor --backend gpu");
  EXPECT_EQ(r.exit_code, 3) << test::shown(r);
  EXPECT_NE(r.err.find("reference model"), std::string::npos) << r.err;
}

TEST(DoctorCli, WithoutADriverTheBinarySaysSoInsteadOfInsufficientDriver) {
  if (!kCudaBuiltIn) GTEST_SKIP() << "a model-only binary does not ask the driver";
  if (libcuda_loadable()) GTEST_SKIP() << "this machine has libcuda.so.1";
  const auto r = test::run_cli("warp-primitives --part shfl --json");
  EXPECT_EQ(r.exit_code, 0) << test::shown(r);
  EXPECT_NE(r.err.find("no NVIDIA driver found (libcuda.so.1 cannot be loaded)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("insufficient"), std::string::npos) << r.err;
}

// In Chinese the report is Chinese: its titles, columns and sentences; its ids, the tools' and
// packages' names and the numbers stay as they are.
TEST(DoctorReport, InChineseTheWordsAreChineseAndTheIdsTheSame) {
  DoctorFacts f = cuda_build();
  f.probe.reason = no_driver_message();
  const report::Report en = commands::doctor_report(f);
  const words::LanguageScope zh(words::Lang::zh);
  const report::Report r = commands::doctor_report(f);
  EXPECT_EQ(r.title, "cudasync doctor：这台机器为各课具备和缺少什么");
  EXPECT_EQ(r.section("machine")->tables[0].columns[0].title, "部件");
  EXPECT_EQ(cell_text(r, "lessons", "lessons", "cg-reduce", 1), "参考模型");
  EXPECT_NE(cell_text(r, "machine", "install", "md4c", 1).find("libmd4c0 和 libmd4c-html0"), std::string::npos);
  EXPECT_NE(fact_text(r, "summary", "lessons-run-on").find("CPU 参考模型"), std::string::npos);
  ASSERT_EQ(r.sections.size(), en.sections.size());
  for (std::size_t i = 0; i < r.sections.size(); ++i) {
    EXPECT_EQ(r.sections[i].id, en.sections[i].id);
    ASSERT_EQ(r.sections[i].tables.size(), en.sections[i].tables.size());
    for (std::size_t t = 0; t < r.sections[i].tables.size(); ++t)
      EXPECT_EQ(r.sections[i].tables[t].rows.size(), en.sections[i].tables[t].rows.size());
  }
}
