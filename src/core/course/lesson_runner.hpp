#pragma once
// Runs a lesson of main's table in this process, as `cudasync <lesson> ARGS` would: its options
// parsed by its own CLI11 subcommand and validated, on the backend the calling command chose (one
// GPU context for the whole tour or check). The tour, `exercise --answer` and `check` use it.
#include <string>
#include <vector>

#include "core/cli/command.hpp"
#include "core/course/exercise.hpp"

namespace cudasync::course {

class InProcessRunner : public LessonRunner {
 public:
  // `commands` is main's table (it outlives the runner); `ctx` the calling command's context.
  InProcessRunner(const std::vector<cli::Command>& commands, const RunContext& ctx);
  // Throws std::logic_error for a lesson not in the table or ARGS its parser refuses (a bug of the
  // caller's row, never a student's input); the lesson's own errors (UsageError, WaivedError,
  // NoGpuError) pass through.
  report::Report run(const std::string& lesson, const std::vector<std::string>& args) override;
  const RunContext& context() const override { return ctx_; }

 private:
  const std::vector<cli::Command>& commands_;
  RunContext ctx_;
};

// The row of `lesson` in main's table, or nullptr.
const cli::Command* find_lesson(const std::vector<cli::Command>& commands, const std::string& lesson);

}  // namespace cudasync::course
