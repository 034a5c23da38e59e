// The engine of the kernel exercises without a GPU: the program NVRTC compiles keeps the student's
// file name and line numbers, the child's request and answer survive the trip, a student's file is
// checked before anything runs, and (in a CUDA build, where NVRTC loads) a right function compiles
// and a wrong one reports the student's own line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/course/student_kernel.hpp"
#include "core/errors.hpp"
#include "core/version.hpp"
#include "support/temp_dir.hpp"

namespace cudasync::course {
namespace {

const char* kHarness =
    "extern \"C\" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {\n"
    "  cudasync_pause(delays, 0);\n"
    "  out[threadIdx.x] = twice(in[threadIdx.x]);\n}\n";

TEST(StudentKernel, TheProgramStartsWithTheStudentsFileUnderItsOwnName) {
  const std::string p = program_source("/home/ann/my_twice.cu", "__device__ int twice(int v) { return 2 * v; }",
                                       kHarness);
  EXPECT_EQ(p.rfind("#line 1 \"my_twice.cu\"\n__device__ int twice", 0), 0u) << p;
  EXPECT_NE(p.find("}\n#line 1 \"cudasync-prelude\"\n"), std::string::npos) << p;  // the checker's delays
  EXPECT_NE(p.find("\n#line 1 \"cudasync-harness\"\nextern \"C\""), std::string::npos) << p;
  // A quote in the name cannot end the directive early.
  EXPECT_EQ(program_source("a\"b.cu", "x", "").rfind("#line 1 \"a_b.cu\"\n", 0), 0u);
}

TEST(StudentKernel, RequestAndAnswerSurviveTheTripToTheChild) {
  StudentKernel k;
  k.file = "w.cu";
  k.source = "source with \"quotes\" and\nlines";
  k.runs = {{2, 3, {1, -2, 3, 4, 5, 6}, {}}, {1, 32, std::vector<std::int32_t>(32, 7), std::vector<std::int32_t>(2, 500)}};
  k.scratch = 64;
  k.model_runs = {1};
  k.model_gpus = 2;
  k.memory_stress = true;
  const StudentKernel back = parse_request(request_text(k));
  EXPECT_EQ(back.file, k.file);
  EXPECT_EQ(back.source, k.source);
  ASSERT_EQ(back.runs.size(), 2u);
  EXPECT_EQ(back.runs[0].grid, 2);
  EXPECT_EQ(back.runs[0].block, 3);
  EXPECT_EQ(back.runs[0].in, k.runs[0].in);
  EXPECT_EQ(back.runs[1].delays, k.runs[1].delays);
  EXPECT_EQ(back.scratch, 64);
  EXPECT_EQ(back.model_runs, std::vector<int>{1});
  EXPECT_EQ(back.model_gpus, 2);
  EXPECT_TRUE(back.memory_stress);

  StudentKernelResult r;
  r.status = StudentKernelResult::Status::compile_error;
  r.log = "w.cu(2): error: expected an expression";
  const StudentKernelResult a = parse_answer(answer_text(r));
  EXPECT_EQ(a.status, StudentKernelResult::Status::compile_error);
  EXPECT_EQ(a.log, r.log);
  EXPECT_EQ(parse_answer("not json").status, StudentKernelResult::Status::failed);
  // With a GPU, the PTX model's finding travels beside the GPU's values.
  StudentKernelResult both;
  both.status = StudentKernelResult::Status::ran;
  both.outs = {{1, 2}, {3}};
  both.finding = "data-race";
  both.finding_run = 1;
  both.model_schedules = 8;
  const StudentKernelResult b = parse_answer(answer_text(both));
  EXPECT_EQ(b.outs, both.outs);
  EXPECT_EQ(b.finding, "data-race");
  EXPECT_EQ(b.finding_run, 1);
  EXPECT_EQ(b.model_schedules, 8);
}

TEST(StudentKernel, ARequestThatIsNotOursIsRefused) {
  EXPECT_THROW(parse_request("{}"), UsageError);
  const std::string common = R"("file":"a","source":"b","scratch":1,"model_runs":[],"model_gpus":1,"memory_stress":false,"compile_only":false,"arch":"")";
  // One input per thread, two delays per warp, blocks of at most 1024, a model run that exists.
  EXPECT_THROW(parse_request(R"({"runs":[{"grid":1,"block":4,"in":[1,2],"delays":[]}],)" + common + "}"), UsageError);
  EXPECT_THROW(parse_request(R"({"runs":[{"grid":1,"block":2000,"in":[],"delays":[]}],)" + common + "}"), UsageError);
  EXPECT_THROW(parse_request(R"({"runs":[{"grid":1,"block":1,"in":[1],"delays":[1,2,3]}],)" + common + "}"), UsageError);
  EXPECT_THROW(parse_request(R"({"runs":[],)" + common + "}"), UsageError);
  EXPECT_NO_THROW(parse_request(R"({"runs":[{"grid":1,"block":1,"in":[1],"delays":[0,5]}],)" + common + "}"));
}

TEST(StudentKernel, TheStudentsFileIsCheckedFirst) {
  EXPECT_THROW(read_student_file(""), UsageError);
  const cudasync::test::TempDir scratch;
  EXPECT_THROW(read_student_file(scratch.path + "/no/such/file.cu"), UsageError);
  EXPECT_THROW(read_student_file("/dev/null"), UsageError);  // not a regular file
  const std::string path = testing::TempDir() + "/empty_kernel.cu";
  std::ofstream(path) << "  \n";
  EXPECT_THROW(read_student_file(path), UsageError);
  std::ofstream(path) << "__device__ int twice(int v) { return 2 * v; }\n";
  EXPECT_EQ(read_student_file(path), "__device__ int twice(int v) { return 2 * v; }\n");
  std::remove(path.c_str());
}

TEST(StudentKernelNvrtc, ARightFunctionCompilesAndAWrongOneNamesTheStudentsLine) {
  if (!kCudaBuiltIn) GTEST_SKIP() << "a model-only build has no NVRTC (the kernel exercises need the CUDA build)";
  if (const std::string why = nvrtc_missing(); !why.empty()) GTEST_SKIP() << why;
  const NvrtcOutput right =
      nvrtc_compile(program_source("twice.cu", "__device__ int twice(int v) {\n  return 2 * v;\n}\n", kHarness),
                    "twice.cu", "sm_75");
  EXPECT_TRUE(right.ok) << right.log;
  EXPECT_FALSE(right.cubin.empty());
  const NvrtcOutput wrong =
      nvrtc_compile(program_source("twice.cu", "__device__ int twice(int v) {\n  return 2 * ;\n}\n", kHarness),
                    "twice.cu", "sm_75");
  EXPECT_FALSE(wrong.ok);
  EXPECT_NE(wrong.log.find("twice.cu(2)"), std::string::npos) << "the student's own line 2: " << wrong.log;
  const NvrtcOutput unnamed =
      nvrtc_compile(program_source("other.cu", "__device__ int thrice(int v) { return 3 * v; }\n", kHarness),
                    "other.cu", "sm_75");
  EXPECT_FALSE(unnamed.ok);
  EXPECT_NE(unnamed.log.find("cudasync-harness(3)"), std::string::npos) << unnamed.log;
}

}  // namespace
}  // namespace cudasync::course
