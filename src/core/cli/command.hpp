#pragma once
// One row of main's command table. attach() adds the command's options to its CLI11 subcommand
// and returns what runs it once parsing is done (CLI11 `subcom_in_files` habit): a validator,
// called after parsing and before a backend is chosen (so a bad combination exits 2 without
// touching a GPU), and the run.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/report/report.hpp"
#include "core/run_context.hpp"

namespace cudasync::course {
struct LessonCourse;  // core/course/exercise.hpp
}

namespace cudasync::cli {

using Runner = std::function<report::Report(const RunContext&)>;
using Validator = std::function<void(const RunContext&)>;  // throws UsageError

struct Attached {
  Attached(Runner r, Validator v = {}) : run(std::move(r)), validate(std::move(v)) {}  // NOLINT: a Runner is enough
  Runner run;
  Validator validate;
};

enum class CommandKind {
  lesson,  // runs kernels or the model: chooses a backend
  tool,    // list, devices, explain: no backend
  course,  // tour, exercise, check: runs lessons in this process, so it chooses a backend as a
           // lesson does, but is not one (list, bench and the course order leave it out)
};

struct Command {
  std::string name;  // its one-line summary is the catalog's (core/cli/app.cpp)
  CommandKind kind = CommandKind::tool;
  std::function<Attached(CLI::App& sub)> attach;
  std::vector<PartSummary> parts;  // a lesson's parts, in order
  int gpus = 1;                    // the GPUs a lesson's run uses at most (multi-gpu: 2)
  // A lesson's place in the course (tour, exercises): static data, or nullptr (not in the course).
  const course::LessonCourse* course = nullptr;
};

}  // namespace cudasync::cli
