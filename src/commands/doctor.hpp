#pragma once
#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync doctor`: what this machine has and lacks, lesson by lesson (commands/doctor_report.hpp),
// and what to install for each missing piece. Exit 0 whenever the lessons can run, on the GPU or
// the reference model; 3 only with --backend gpu and no usable GPU.
cli::Runner attach_doctor(CLI::App& sub);
}  // namespace cudasync::commands
