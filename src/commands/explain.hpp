#pragma once
#include <string>
#include <vector>

#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync explain <lesson> [--lang en|zh]`: the lesson text, embedded in the binary, as a
// student reads it. It holds no answers: those to the questions for class are for teachers, in
// docs/teachers/<lesson>.<lang>.md of the source tree (never installed); an exercise's answer is
// computed by `cudasync exercise <lesson> N --answer`. The hidden `--answers` of earlier releases
// is a usage error that says where the answers went.
cli::Runner attach_explain(CLI::App& sub, const std::vector<cli::Command>& table);
// The usage error `explain <lesson> --answers` gives: where the teacher's answers and the exercises'
// answers are now.
std::string answers_moved(const std::string& lesson, const std::string& lang);
}  // namespace cudasync::commands
