#include "core/course/kernel_exercise.hpp"

#include <filesystem>
#include <sstream>

#include "core/course/student_kernel.hpp"
#include "core/words/words.hpp"

namespace cudasync::course {

namespace {

constexpr std::size_t kMaxMessageLines = 40;  // a compile log past this is cut, and says so
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
      o.verdict.reason = r.on_model ? Text{"the PTX model (no GPU) found a " + r.finding + ": " + r.log,
                                           "PTX 模型（没有 GPU）发现了 " + r.finding + "：" + r.log}
                                    : Text{"the PTX model found a " + r.finding + ": " + r.log +
                                               " (the GPU was not asked: it would wait until the deadline)",
                                           "PTX 模型发现了 " + r.finding + "：" + r.log + "（没有在 GPU 上运行：它会一直等到时限）"};
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

}  // namespace cudasync::course
