#include "core/course/student_kernel.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
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
constexpr std::size_t kMaxRuns = 256;

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

// The harness's PTX on the PTX model, under schedules that hunt for what one run on the hardware may
// hide (core/ptx/ptx_machine.hpp), for each of k.model_runs in turn: the first finding, else the
// outputs. `cannot_run` is set (with why) when the model lacks what the program uses.
struct ModelRun {
  std::vector<std::vector<std::int32_t>> outs;
  std::string finding, log, cannot_run;
  int finding_run = -1;
  int schedules = 0;
};

ModelRun run_on_ptx_model(const StudentKernel& k, const std::string& ptx_text, std::uint64_t seed) {
  ModelRun m;
  try {
    const ptx::Program program = ptx::parse_program(ptx_text);
    for (const int index : k.model_runs) {
      const KernelLaunch& run = k.runs.at(static_cast<std::size_t>(index));
      ptx::Launch launch;
      launch.entry = kHarnessEntry;
      launch.grid = run.grid;
      launch.block = run.block;
      launch.gpus = k.model_gpus;
      // The model's delays are its schedules: the launch's own are left out (all zero).
      const std::size_t delays = run.delays.empty() ? std::size_t{2} * static_cast<std::size_t>(run.grid) *
                                                          static_cast<std::size_t>((run.block + 31) / 32)
                                                    : run.delays.size();
      launch.buffers = {{"in", ptx::bytes_of(run.in)},
                        {"out", std::vector<std::uint8_t>(run.in.size() * 4, 0)},
                        {"scratch", std::vector<std::uint8_t>(static_cast<std::size_t>(k.scratch) * 4, 0)},
                        {"delays", std::vector<std::uint8_t>(delays * 4, 0)}};
      launch.args = {ptx::Arg::buffer_of(0), ptx::Arg::buffer_of(1), ptx::Arg::buffer_of(2), ptx::Arg::buffer_of(3)};
      const std::vector<ptx::Schedule> schedules = ptx::hunting_schedules(launch, seed);
      m.schedules += static_cast<int>(schedules.size());
      const ptx::Outcome o = ptx::check_schedules(program, launch, schedules);
      if (!o.findings.empty()) {
        const ptx::Finding& f = o.findings.front();
        if (f.kind == "unsupported-instruction" || f.kind == "limit" || f.kind == "malformed") {
          m.cannot_run = f.message;
        } else {
          m.finding = f.kind;
          m.log = f.message;
          m.finding_run = index;
        }
        return m;
      }
      m.outs.push_back(ptx::ints_of(o.buffers.at(1)));
    }
  } catch (const std::exception& e) {
    m.cannot_run = e.what();
  }
  return m;
}

// The prelude between the student's file and the harness: the delays the checker injects per warp,
// before (point 0) and after (point 1) the student's code. On the PTX model they are zero (its
// schedules do the hunting) and __nanosleep orders nothing.
constexpr const char* kPrelude =
    "__device__ __forceinline__ void cudasync_pause(const int* delays, int point) {\n"
    "  const int warps = (blockDim.x + 31) / 32;\n"
    "  const int ns = delays[(point * gridDim.x + blockIdx.x) * warps + threadIdx.x / 32];\n"
    "  if (ns > 0) __nanosleep(static_cast<unsigned>(ns));\n"
    "}\n";

}  // namespace

std::string program_source(const std::string& file, const std::string& student, const std::string& harness) {
  std::string s = "#line 1 \"" + line_name(file) + "\"\n" + student;
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s + "#line 1 \"cudasync-prelude\"\n" + kPrelude + "#line 1 \"" + kHarnessName + "\"\n" + harness;
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
  json runs = json::array();
  for (const KernelLaunch& r : k.runs)
    runs.push_back({{"grid", r.grid}, {"block", r.block}, {"in", r.in}, {"delays", r.delays}});
  return json{{"file", k.file},         {"source", k.source},         {"runs", runs},
              {"scratch", k.scratch},   {"model_runs", k.model_runs}, {"model_gpus", k.model_gpus},
              {"memory_stress", k.memory_stress}, {"compile_only", k.compile_only}, {"arch", k.arch}}
      .dump();
}

StudentKernel parse_request(const std::string& text) {
  StudentKernel k;
  try {
    const json j = json::parse(text);
    k.file = j.at("file").get<std::string>();
    k.source = j.at("source").get<std::string>();
    for (const json& r : j.at("runs"))
      k.runs.push_back({r.at("grid").get<int>(), r.at("block").get<int>(), r.at("in").get<std::vector<std::int32_t>>(),
                        r.at("delays").get<std::vector<std::int32_t>>()});
    k.scratch = j.at("scratch").get<int>();
    k.model_runs = j.at("model_runs").get<std::vector<int>>();
    k.model_gpus = j.at("model_gpus").get<int>();
    k.memory_stress = j.at("memory_stress").get<bool>();
    k.compile_only = j.at("compile_only").get<bool>();
    k.arch = j.at("arch").get<std::string>();
  } catch (const json::exception& e) {
    throw UsageError(std::string("--kernel-request: not a request cudasync wrote (") + e.what() +
                     "); accepted: the file the parent process writes");
  }
  if (k.runs.empty() || k.runs.size() > kMaxRuns)
    throw UsageError("--kernel-request: " + std::to_string(k.runs.size()) + " launches; accepted: 1.." +
                     std::to_string(kMaxRuns));
  for (const KernelLaunch& r : k.runs) {
    const long long threads = static_cast<long long>(r.grid) * r.block;
    const long long delays = 2LL * r.grid * ((r.block + 31) / 32);
    if (r.grid < 1 || r.block < 1 || r.block > 1024 || threads > kMaxThreads ||
        static_cast<long long>(r.in.size()) != threads ||
        (!r.delays.empty() && static_cast<long long>(r.delays.size()) != delays))
      throw UsageError("--kernel-request: grid " + std::to_string(r.grid) + " x block " + std::to_string(r.block) +
                       " with " + std::to_string(r.in.size()) + " inputs; accepted: one input per thread, two "
                       "delays per warp, blocks of 1..1024 threads, at most " + std::to_string(kMaxThreads) + " threads");
  }
  if (k.scratch < 1 || k.scratch > (1 << 16) || k.model_gpus < 1 || k.model_gpus > 8)
    throw UsageError("--kernel-request: scratch " + std::to_string(k.scratch) + ", model GPUs " +
                     std::to_string(k.model_gpus) + "; accepted: 1..65536 ints, 1..8 GPUs");
  for (const int i : k.model_runs)
    if (i < 0 || i >= static_cast<int>(k.runs.size()))
      throw UsageError("--kernel-request: model run " + std::to_string(i) + "; accepted: an index of runs");
  const bool arch_ok = k.arch.size() > 3 && k.arch.rfind("sm_", 0) == 0 &&
                       k.arch.find_first_not_of("0123456789", 3) == std::string::npos;
  if ((k.compile_only || !k.arch.empty()) && !arch_ok)
    throw UsageError("--kernel-request: arch '" + k.arch + "'; accepted: sm_ and a compute capability (sm_90)");
  return k;
}

std::string answer_text(const StudentKernelResult& r) {
  return json{{"status", status_name(r.status)}, {"log", r.log},
              {"outs", r.outs},                  {"on_model", r.on_model},
              {"finding", r.finding},            {"finding_log", r.finding_log},
              {"finding_run", r.finding_run},    {"model_skipped", r.model_skipped},
              {"model_schedules", r.model_schedules}, {"failed_run", r.failed_run},
              {"model_outs", r.model_outs}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

StudentKernelResult parse_answer(const std::string& text) {
  StudentKernelResult r;
  try {
    const json j = json::parse(text);
    const std::string s = j.at("status").get<std::string>();
    r.log = j.at("log").get<std::string>();
    r.outs = j.at("outs").get<std::vector<std::vector<std::int32_t>>>();
    r.on_model = j.at("on_model").get<bool>();
    r.finding = j.at("finding").get<std::string>();
    r.finding_log = j.at("finding_log").get<std::string>();
    r.finding_run = j.at("finding_run").get<int>();
    r.model_skipped = j.at("model_skipped").get<std::string>();
    r.model_schedules = j.at("model_schedules").get<int>();
    r.failed_run = j.at("failed_run").get<int>();
    r.model_outs = j.at("model_outs").get<std::vector<std::vector<std::int32_t>>>();
    r.status = StudentKernelResult::Status::failed;
    for (auto st : {StudentKernelResult::Status::ran, StudentKernelResult::Status::compiled,
                    StudentKernelResult::Status::model_finding, StudentKernelResult::Status::compile_error,
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

SanitizerOutcome sanitize_student_kernel(const RunContext& ctx, const StudentKernel& k, const std::string& sanitizer,
                                         const std::string& tool, std::chrono::milliseconds deadline) {
  SanitizerOutcome out;
  out.tool = tool;
  const std::string request = make_temp_file("kernel", "request");
  const std::string log = make_temp_file("kernel", "sanitizer");
  {
    StudentKernel asked = k;
    asked.model_runs.clear();  // the GPU alone: the sanitizer watches the hardware
    std::ofstream f(request);
    f << request_text(asked);
  }
  const parts::ChildLaunch l = parts::child_launch(ctx, "exercise", "kernel", {"--kernel-request", request});
  std::vector<std::string> args = {"--tool", tool, "--log-file", log, "--error-exitcode", "99"};
  if (tool == "racecheck") args.insert(args.end(), {"--racecheck-report", "hazard"});
  args.push_back(self_executable());
  args.insert(args.end(), l.args.begin(), l.args.end());
  ChildResult c;
  try {
    ChildProcess child(sanitizer, args, deadline, "sanitizer", l.env);
    c = child.finish();
  } catch (const std::exception& e) {
    out.why_not = e.what();
  }
  std::ifstream in(log);
  const std::string base = line_name(k.file);
  std::string first_error;
  for (std::string line; std::getline(in, line);) {
    if (const auto at = line.find("ERROR SUMMARY: "); at != std::string::npos) {
      out.ran = true;
      out.errors = std::atoi(line.c_str() + at + 15);
    } else if (const auto rc = line.find("RACECHECK SUMMARY: "); rc != std::string::npos) {
      // racecheck: "RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)"
      out.ran = true;
      const auto open = line.find('(', rc);
      out.errors = open == std::string::npos ? std::atoi(line.c_str() + rc + 19) : std::atoi(line.c_str() + open + 1);
    } else if (out.first.empty() && line.find(base + ":") != std::string::npos) {
      const auto text = line.find_first_not_of("= ");  // past the sanitizer's "========= " prefix
      out.first = text == std::string::npos ? line : line.substr(text);
    } else if (first_error.empty() && (line.find("Error") != std::string::npos || line.find("Race") != std::string::npos ||
                                       line.find("hazard") != std::string::npos)) {
      first_error = line;
    }
  }
  if (out.first.empty()) out.first = first_error;
  if (!out.ran && out.why_not.empty())
    out.why_not = c.status == ChildResult::Status::timeout ? "it did not end within its deadline" : "it ended with " + c.describe();
  std::remove(request.c_str());
  std::remove(log.c_str());
  return out;
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
  // The PTX model first (the CPU: it cannot hang the GPU), then, with a GPU, the hardware as well:
  // a race the model finds is shown beside the values the GPU happened to give.
  const ModelRun m = run_on_ptx_model(k, compiled.ptx, ctx.seed);
  r.model_schedules = m.schedules;
  r.finding = m.finding;
  r.finding_log = m.log;
  r.finding_run = m.finding_run;
  if (k.compile_only) {
    r.on_model = true;
    if (!m.cannot_run.empty()) {
      r.status = StudentKernelResult::Status::compiled;
      r.log = m.cannot_run;
    } else if (!m.finding.empty()) {
      r.status = StudentKernelResult::Status::model_finding;
      r.log = m.log;
    } else {
      r.status = StudentKernelResult::Status::ran;
      r.outs = m.outs;
    }
    return answer_text(r);
  }
  r.model_skipped = m.cannot_run;
  if (m.cannot_run.empty() && m.finding.empty()) r.model_outs = m.outs;
  // A program the model shows never finishing (a deadlock, a barrier some threads never reach, a
  // spin past the step limit) would hang the GPU until the deadline: the model's word is enough.
  if (m.finding == "deadlock" || m.finding == "barrier-divergence" || m.finding == "barrier-count" ||
      m.finding == "step-limit") {
    r.status = StudentKernelResult::Status::model_finding;
    r.log = m.log;
    return answer_text(r);
  }
  try {
    r.outs = gpu_run_cubin(compiled.cubin, k.runs, k.scratch, k.memory_stress, ctx.device->index);
    r.status = StudentKernelResult::Status::ran;
  } catch (const KernelLaunchError& e) {
    r.status = StudentKernelResult::Status::failed;
    r.failed_run = e.run;
    r.log = e.what();
  } catch (const std::exception& e) {
    r.status = StudentKernelResult::Status::failed;
    r.log = e.what();
  }
  return answer_text(r);
}

}  // namespace cudasync::course
