#include "core/course/student_kernel.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/child_process.hpp"
#include "core/errors.hpp"
#include "core/parts/child.hpp"
#include "core/ptx/ptx_machine.hpp"
#include "core/version.hpp"

namespace cudasync::course {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxStudentFile = 256 * 1024;
constexpr int kMaxThreads = 1 << 16;  // the harnesses launch a few hundred; a request above is not ours

const char* status_name(StudentKernelResult::Status s) {
  switch (s) {
    case StudentKernelResult::Status::ran: return "ran";
    case StudentKernelResult::Status::compiled: return "compiled";
    case StudentKernelResult::Status::model_finding: return "model-finding";
    case StudentKernelResult::Status::compile_error: return "compile-error";
    case StudentKernelResult::Status::timeout: return "timeout";
    case StudentKernelResult::Status::failed: return "failed";
  }
  return "failed";
}

// A file name as a #line directive can hold it: no quote, backslash or line break.
std::string line_name(const std::string& file) {
  std::string out;
  for (char c : std::filesystem::path(file).filename().string()) out += (c == '"' || c == '\\' || c == '\n' || c == '\r') ? '_' : c;
  return out.empty() ? std::string("kernel.cu") : out;
}

// Without a GPU: the harness's PTX on the PTX model, under schedules that hunt for what one run on
// the hardware may hide (core/ptx/ptx_machine.hpp): the first finding, else the output.
StudentKernelResult run_on_ptx_model(const StudentKernel& k, const std::string& ptx_text, std::uint64_t seed) {
  StudentKernelResult r;
  r.on_model = true;
  try {
    const ptx::Program program = ptx::parse_program(ptx_text);
    ptx::Launch launch;
    launch.entry = kHarnessEntry;
    launch.grid = k.grid;
    launch.block = k.block;
    launch.buffers = {{"in", ptx::bytes_of(k.in)}, {"out", std::vector<std::uint8_t>(k.in.size() * 4, 0)}};
    launch.args = {ptx::Arg::buffer_of(0), ptx::Arg::buffer_of(1)};
    const ptx::Outcome o = ptx::check_schedules(program, launch, ptx::hunting_schedules(launch, seed));
    if (!o.findings.empty()) {
      const ptx::Finding& f = o.findings.front();
      const bool cannot_run = f.kind == "unsupported-instruction" || f.kind == "limit" || f.kind == "malformed";
      r.status = cannot_run ? StudentKernelResult::Status::compiled : StudentKernelResult::Status::model_finding;
      r.finding = f.kind;
      r.log = f.message;
      return r;
    }
    r.status = StudentKernelResult::Status::ran;
    r.out = ptx::ints_of(o.buffers.at(1));
  } catch (const std::exception& e) {
    r.status = StudentKernelResult::Status::compiled;
    r.log = e.what();
  }
  return r;
}

}  // namespace

std::string program_source(const std::string& file, const std::string& student, const std::string& harness) {
  std::string s = "#line 1 \"" + line_name(file) + "\"\n" + student;
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s + "#line 1 \"" + kHarnessName + "\"\n" + harness;
}

std::string read_student_file(const std::string& path) {
  struct stat st {};
  if (path.empty()) throw UsageError("--kernel needs a file; accepted: the path of your .cu file");
  if (stat(path.c_str(), &st) != 0)
    throw UsageError("--kernel " + path + ": no such file; accepted: the path of a readable .cu file");
  if (!S_ISREG(st.st_mode))
    throw UsageError("--kernel " + path + ": not a regular file; accepted: the path of a readable .cu file");
  if (static_cast<std::size_t>(st.st_size) > kMaxStudentFile)
    throw UsageError("--kernel " + path + ": " + std::to_string(st.st_size) +
                     " bytes, more than a __device__ function needs; accepted: a file of at most 256 KiB");
  std::ifstream f(path, std::ios::binary);
  std::ostringstream text;
  text << f.rdbuf();
  if (!f.good() && !f.eof()) throw UsageError("--kernel " + path + ": cannot be read; accepted: a readable file");
  const std::string s = text.str();
  if (s.find_first_not_of(" \t\r\n") == std::string::npos)
    throw UsageError("--kernel " + path + ": the file is empty; accepted: a file with your __device__ function");
  if (s.find('\0') != std::string::npos)
    throw UsageError("--kernel " + path + ": not a text file; accepted: CUDA C++ source");
  return s;
}

std::string request_text(const StudentKernel& k) {
  return json{{"file", k.file}, {"source", k.source}, {"grid", k.grid}, {"block", k.block}, {"in", k.in},
              {"compile_only", k.compile_only}, {"arch", k.arch}}
      .dump();
}

StudentKernel parse_request(const std::string& text) {
  StudentKernel k;
  try {
    const json j = json::parse(text);
    k.file = j.at("file").get<std::string>();
    k.source = j.at("source").get<std::string>();
    k.grid = j.at("grid").get<int>();
    k.block = j.at("block").get<int>();
    k.in = j.at("in").get<std::vector<std::int32_t>>();
    k.compile_only = j.at("compile_only").get<bool>();
    k.arch = j.at("arch").get<std::string>();
  } catch (const json::exception& e) {
    throw UsageError(std::string("--kernel-request: not a request cudasync wrote (") + e.what() +
                     "); accepted: the file the parent process writes");
  }
  const long long threads = static_cast<long long>(k.grid) * k.block;
  if (k.grid < 1 || k.block < 1 || k.block > 1024 || threads > kMaxThreads ||
      static_cast<long long>(k.in.size()) != threads)
    throw UsageError("--kernel-request: grid " + std::to_string(k.grid) + " x block " + std::to_string(k.block) +
                     " with " + std::to_string(k.in.size()) + " inputs; accepted: one input per thread, blocks of "
                     "1..1024 threads, at most " + std::to_string(kMaxThreads) + " threads");
  const bool arch_ok = k.arch.size() > 3 && k.arch.rfind("sm_", 0) == 0 &&
                       k.arch.find_first_not_of("0123456789", 3) == std::string::npos;
  if ((k.compile_only || !k.arch.empty()) && !arch_ok)
    throw UsageError("--kernel-request: arch '" + k.arch + "'; accepted: sm_ and a compute capability (sm_90)");
  return k;
}

std::string answer_text(const StudentKernelResult& r) {
  return json{{"status", status_name(r.status)}, {"log", r.log}, {"out", r.out}, {"on_model", r.on_model},
              {"finding", r.finding}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

StudentKernelResult parse_answer(const std::string& text) {
  StudentKernelResult r;
  try {
    const json j = json::parse(text);
    const std::string s = j.at("status").get<std::string>();
    r.log = j.at("log").get<std::string>();
    r.out = j.at("out").get<std::vector<std::int32_t>>();
    r.on_model = j.at("on_model").get<bool>();
    r.finding = j.at("finding").get<std::string>();
    for (auto st : {StudentKernelResult::Status::ran, StudentKernelResult::Status::compiled,
                    StudentKernelResult::Status::model_finding,
                    StudentKernelResult::Status::compile_error,
                    StudentKernelResult::Status::timeout, StudentKernelResult::Status::failed})
      if (s == status_name(st)) r.status = st;
  } catch (const json::exception& e) {
    r = StudentKernelResult{};
    r.log = std::string("the child's answer could not be read (") + e.what() + ")";
  }
  return r;
}

StudentKernelResult run_student_kernel(const RunContext& ctx, const StudentKernel& k,
                                       std::chrono::milliseconds deadline) {
  const bool gpu = ctx.gpu && ctx.device;
  if (!kCudaBuiltIn)
    throw WaivedError("this exercise compiles your function with NVRTC and runs it on a GPU, and this build of "
                      "cudasync has neither (built without CUDA); run it where cudasync doctor finds a GPU");
  if (const std::string why = nvrtc_missing(); !why.empty())
    throw WaivedError("this exercise compiles your function at run time with NVRTC, which cannot be loaded here: " +
                      why + " (install the CUDA toolkit's NVRTC, the package cuda-nvrtc-13-0; cudasync doctor "
                      "says what else is missing)");
  const std::string request = make_temp_file("kernel", "request");
  {
    StudentKernel asked = k;
    asked.compile_only = !gpu;
    if (!gpu) asked.arch = kCompileOnlyArch;
    std::ofstream f(request);
    f << request_text(asked);
  }
  ChildResult c;
  {
    const parts::ChildLaunch l = parts::child_launch(ctx, "exercise", "kernel", {"--kernel-request", request});
    ChildProcess child(self_executable(), l.args, deadline, "kernel", l.env);
    c = child.finish();
  }
  std::remove(request.c_str());
  StudentKernelResult r;
  if (c.status == ChildResult::Status::timeout) {
    r.status = StudentKernelResult::Status::timeout;
    r.log = "the kernel did not return within " + std::to_string(deadline.count()) +
            " ms, compile time included: the child process running it was ended";
    return r;
  }
  if (c.status != ChildResult::Status::exited || c.exit_code != 0 || c.output.empty()) {
    r.status = StudentKernelResult::Status::failed;
    r.log = "the child process running the kernel ended with " + c.describe();
    return r;
  }
  StudentKernelResult answer = parse_answer(c.output);
  if (answer.status == StudentKernelResult::Status::compiled)
    throw WaivedError("your function compiles (NVRTC, " + std::string(kCompileOnlyArch) + ", no errors), and the PTX "
                      "model cannot run it: " + answer.log + "; run it where cudasync doctor finds a GPU");
  return answer;
}

std::string student_kernel_child(const RunContext& ctx, const std::string& request_path) {
  struct stat st {};
  // The parent writes one small file: anything else (a device, a directory, gigabytes) is refused unread.
  if (stat(request_path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 4 * 1024 * 1024)
    throw UsageError("--kernel-request " + request_path + ": not a request file; accepted: the file the parent writes");
  std::ifstream f(request_path);
  if (!f) throw UsageError("--kernel-request " + request_path + ": cannot be read; accepted: the file the parent writes");
  std::ostringstream text;
  text << f.rdbuf();
  const StudentKernel k = parse_request(text.str());
  StudentKernelResult r;
  if (!k.compile_only && (!ctx.gpu || !ctx.device)) {
    r.log = "no GPU in the child";
    return answer_text(r);
  }
  const std::string arch = k.compile_only ? k.arch : "sm_" + std::to_string(ctx.device->compute_capability());
  const NvrtcOutput compiled = nvrtc_compile(k.source, k.file, arch);
  if (!compiled.ok) {
    r.status = StudentKernelResult::Status::compile_error;
    r.log = compiled.log;
    return answer_text(r);
  }
  if (k.compile_only) return answer_text(run_on_ptx_model(k, compiled.ptx, ctx.seed));
  try {
    r.out = gpu_run_cubin(compiled.cubin, k.grid, k.block, k.in, ctx.device->index);
    r.status = StudentKernelResult::Status::ran;
  } catch (const std::exception& e) {
    r.status = StudentKernelResult::Status::failed;
    r.log = e.what();
  }
  return answer_text(r);
}

}  // namespace cudasync::course
