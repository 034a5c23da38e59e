#include "core/course/kernel_exercise.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/course/student_kernel.hpp"
#include "core/words/words.hpp"

namespace cudasync::course {

namespace {

std::map<std::string, KernelRun>& registry() {
  static std::map<std::string, KernelRun> runs;
  return runs;
}

constexpr std::size_t kMaxMessageLines = 40;  // a compile log past this is cut, and says so
// A student's kernel: compile, CUDA start-up and the run together; past it the child is ended.
constexpr std::chrono::milliseconds kKernelDeadline{15000};

// The compiler's messages, one row per line: the student's file name and line numbers as NVRTC
// printed them (the program's first lines are the student's file).
report::Table messages_table(const std::string& log) {
  report::Table t("messages", "the compiler's messages");
  t.column("line", "#", report::Format::count).column("message", "message");
  std::istringstream in(log);
  std::string line;
  std::size_t n = 0, shown = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ++n;
    if (shown < kMaxMessageLines) {
      t.row({{"line", static_cast<std::int64_t>(n)}, {"message", line}});
      ++shown;
    }
  }
  if (n > shown) t.legend.push_back(std::to_string(n - shown) + " more lines not shown");
  t.fold = report::Fold::records;
  return t;
}

// The first line of the log that names the student's file, else the first line.
std::string first_error(const std::string& log, const std::string& file) {
  std::istringstream in(log);
  std::string line, first;
  const std::string base = std::filesystem::path(file).filename().string();
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (first.empty()) first = line;
    if (line.find("error") != std::string::npos && line.find(base) != std::string::npos) return line;
  }
  return first;
}

}  // namespace

Exercise kernel_exercise(const std::string& lesson, int number, std::string id, std::string starter, KernelRun run) {
  Exercise e;
  e.number = number;
  e.id = std::move(id);
  e.kind = Kind::kernel;
  e.needs_gpu = true;
  e.kernel = lesson + "/" + e.id;
  e.starter = std::move(starter);
  register_kernel_run(e.kernel, std::move(run));
  return e;
}

std::optional<KernelOutcome> unfinished_outcome(const StudentKernelResult& r, const std::string& file) {
  using S = StudentKernelResult::Status;
  if (r.status == S::ran) return std::nullopt;
  KernelOutcome o;
  report::Section s("kernel", "your kernel");
  s.fact("file", "file (--kernel)", file);
  switch (r.status) {
    case S::compile_error: {
      s.fact("outcome", "outcome", std::string("does not compile"));
      s.add(messages_table(r.log));
      const std::string first = first_error(r.log, file);
      o.verdict.reason = {"it does not compile: " + first,
                          "它编译不过：" + first};
      if (r.log.find(kHarnessName) != std::string::npos && first.find(kHarnessName) != std::string::npos) {
        o.verdict.reason.en += " (the lines of " + std::string(kHarnessName) +
                               " are the tool's kernel, which calls your function: give it the exercise's signature)";
        o.verdict.reason.zh += "（" + std::string(kHarnessName) + " 的行是工具的核函数，它调用你的函数：请按练习给出的签名写）";
      }
      break;
    }
    case S::timeout:
      s.fact("outcome", "outcome", std::string("did not return"));
      s.paragraph(r.log);
      o.verdict.reason = {"it did not return: " + r.log +
                              ". A spin whose condition never changes, or a __syncthreads() that not every thread "
                              "of the block reaches, waits for ever",
                          "它没有返回：" + r.log + "。条件永远不变的自旋，或者并非线程块中每个线程都能到达的 "
                                                    "__syncthreads()，会一直等下去"};
      break;
    case S::model_finding: {
      // Without a GPU: the PTX model ran the harness under schedules that hunt (core/ptx) and found
      // what no schedule may excuse: a race, a deadlock, a barrier some threads never reach...
      s.fact("outcome", "outcome", std::string("the PTX model found a ") + r.finding);
      s.fact("finding", "finding", r.finding);
      s.paragraph(r.log);
      o.verdict.reason = {"the PTX model (no GPU) found a " + r.finding + ": " + r.log,
                          "PTX 模型（没有 GPU）发现了 " + r.finding + "：" + r.log};
      break;
    }
    case S::failed:
    case S::compiled:  // run_student_kernel waives it
    case S::ran:
      s.fact("outcome", "outcome", std::string("failed on the GPU"));
      s.paragraph(r.log);
      o.verdict.reason = {"it failed on the GPU: " + r.log + " (an index outside the arrays, or a trap)",
                          "它在 GPU 上出错：" + r.log + "（数组越界，或者 trap）"};
      break;
  }
  o.sections.push_back(std::move(s));
  return o;
}

KernelOutcome compile_run_judge(const KernelRequest& request, const char* harness, int grid, int block,
                                std::vector<std::int32_t> in, const KernelJudge& judge) {
  StudentKernel k;
  k.file = request.file;
  k.source = program_source(request.file, read_student_file(request.file), harness);
  k.grid = grid;
  k.block = block;
  k.in = std::move(in);
  const StudentKernelResult r = run_student_kernel(*request.ctx, k, kKernelDeadline);
  if (auto unfinished = unfinished_outcome(r, request.file)) {
    unfinished->on_ptx_model = r.on_model;
    return *unfinished;
  }
  KernelOutcome o = judge(k.in, r.out);
  o.on_ptx_model = r.on_model;
  if (r.on_model && !o.sections.empty())
    o.sections.front().note(words::core("course.ran-on-ptx-model"));
  return o;
}

void register_kernel_run(const std::string& key, KernelRun run) { registry()[key] = std::move(run); }

const KernelRun* find_kernel_run(const std::string& key) {
  const auto& runs = registry();
  const auto it = runs.find(key);
  return it == runs.end() ? nullptr : &it->second;
}

}  // namespace cudasync::course
