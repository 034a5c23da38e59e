#include "core/parts/child.hpp"

#include <fstream>

#include "core/errors.hpp"

namespace cudasync::parts {

std::vector<std::string> child_args(const RunContext& ctx, const std::string& lesson, const std::string& child,
                                    const std::vector<std::string>& args) {
  std::vector<std::string> a{lesson, "--child", child, "--child-out", ChildProcess::kOutToken};
  a.insert(a.end(), args.begin(), args.end());
  for (const char* s : {"--backend", "gpu"}) a.emplace_back(s);
  if (ctx.device) a.insert(a.end(), {"--device", std::to_string(ctx.device->index)});
  a.insert(a.end(), {"--seed", std::to_string(ctx.seed), "--color", "never", "-q"});
  return a;
}

std::unique_ptr<ChildProcess> start_child(const RunContext& ctx, const std::string& lesson, const std::string& child,
                                          const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  return std::make_unique<ChildProcess>(self_executable(), child_args(ctx, lesson, child, args), timeout,
                                        lesson + "_" + child);
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
