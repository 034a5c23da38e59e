#pragma once
#include <string>
#include <vector>

#include "core/cli/command.hpp"
namespace cudasync::commands {
// `cudasync explain <lesson> [--lang en|zh] [--answers]`: the lesson text, embedded in the binary,
// without its answers section unless --answers asks for it: a pointer to `cudasync exercise` stands
// in its place.
cli::Runner attach_explain(CLI::App& sub, const std::vector<cli::Command>& table);
// `text` with its "## Answers" ("## 答案") section replaced by that pointer (to the exercises when
// the lesson has some).
std::string without_answers(const std::string& text, const std::string& lesson, const std::string& lang,
                            bool has_exercises);
}  // namespace cudasync::commands
