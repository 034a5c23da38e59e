#include "core/parts/child.hpp"

#include <algorithm>
#include <fstream>

#include "core/errors.hpp"
#include "core/visible_gpus.hpp"

namespace cudasync::parts {

std::vector<std::string> child_args(const RunContext& ctx, const std::string& lesson, const std::string& child,
                                    const std::vector<std::string>& args) {
  std::vector<std::string> a{lesson, "--child", child, "--child-out", ChildProcess::kOutToken};
  a.insert(a.end(), args.begin(), args.end());
  // A child of a run without a GPU only compiles (a student's kernel): it must not ask for one.
  a.insert(a.end(), {"--backend", ctx.gpu ? "gpu" : "model"});
  if (ctx.device) a.insert(a.end(), {"--device", std::to_string(ctx.device->index)});
  // The child prints in the parent's language: what it writes into its answer may be shown.
  a.insert(a.end(), {"--seed", std::to_string(ctx.seed), "--color", "never", "-q", "--lang", ctx.lang});
  return a;
}

ChildLaunch child_launch(const RunContext& ctx, const std::string& lesson, const std::string& child,
                         const std::vector<std::string>& args) {
  ChildLaunch l{child_args(ctx, lesson, child, args), {}};
  if (!ctx.device) return l;
  const auto visible = child_visible_devices(ctx.device->index);
  if (!visible) return l;
  l.env.push_back(*visible);
  const auto device = std::find(l.args.begin(), l.args.end(), "--device");
  if (device != l.args.end() && device + 1 != l.args.end()) *(device + 1) = "0";
  return l;
}

std::unique_ptr<ChildProcess> start_child(const RunContext& ctx, const std::string& lesson, const std::string& child,
                                          const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  const ChildLaunch l = child_launch(ctx, lesson, child, args);
  return std::make_unique<ChildProcess>(self_executable(), l.args, timeout, lesson + "_" + child, l.env);
}

void write_child_answer(const std::string& path, const std::string& answer) {
  std::ofstream f(path);
  f << answer;
  f.close();
  if (!f)
    throw UsageError("--child-out " + path + ": cannot write the child's answer there; accepted: a file the child "
                     "process can write (its parent names one)");
}

}  // namespace cudasync::parts
