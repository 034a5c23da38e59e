#pragma once
// A part that may hang or fault the GPU runs in a child process: this same binary, in the lesson's
// hidden child mode (`cudasync <lesson> --child <id> --child-out FILE ...`, declared by the
// lesson's table), with the parent's device and seed. One place builds that command line.
//
//   auto child = parts::start_child(ctx, "lock", "copy", {}, std::chrono::seconds(20));
//   ... the parent runs other parts meanwhile ...
//   const ChildResult r = child->finish();   // r.output: what the child's run returned
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/child_process.hpp"
#include "core/run_context.hpp"

namespace cudasync::parts {

// The arguments after the executable: `<lesson> --child <child> --child-out {out} <args...>
// --backend gpu --device N --seed S --color never -q`.
std::vector<std::string> child_args(const RunContext& ctx, const std::string& lesson, const std::string& child,
                                    const std::vector<std::string>& args);

// A child on one GPU sees only the parent's device, as its device 0 (core/visible_gpus.hpp): the
// arguments say --device 0 and `env` narrows CUDA_VISIBLE_DEVICES. Where the device cannot be
// named, `env` is empty and the arguments keep the parent's numbering.
struct ChildLaunch {
  std::vector<std::string> args;
  std::vector<std::string> env;
};
ChildLaunch child_launch(const RunContext& ctx, const std::string& lesson, const std::string& child,
                         const std::vector<std::string>& args);

// Starts this binary with child_launch(). Throws std::runtime_error when it cannot be started.
std::unique_ptr<ChildProcess> start_child(const RunContext& ctx, const std::string& lesson, const std::string& child,
                                          const std::vector<std::string>& args, std::chrono::milliseconds timeout);

// The child's side: writes its answer where the parent reads it (UsageError if it cannot).
void write_child_answer(const std::string& path, const std::string& answer);

}  // namespace cudasync::parts
