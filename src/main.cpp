// cudasync: one table of commands, lessons in course order. A new lesson is a new folder under
// techniques/ and one row here.
#include "commands/bench.hpp"
#include "commands/devices.hpp"
#include "commands/doctor.hpp"
#include "commands/explain.hpp"
#include "commands/help.hpp"
#include "commands/list.hpp"
#include "commands/sources.hpp"
#include "core/cli/app.hpp"
#include "core/parts/attach.hpp"
#include "techniques/cg_reduce/cg_reduce_lesson.hpp"
#include "techniques/deadlock_demo/deadlock_demo_lesson.hpp"
#include "techniques/lock/lock_lesson.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"
#include "techniques/multi_gpu/multi_gpu_lesson.hpp"
#include "techniques/named_barriers/named_barriers_lesson.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

int main(int argc, char** argv) {
  using cudasync::cli::CommandKind;
  namespace parts = cudasync::parts;
  const std::vector<cudasync::cli::Command> commands = {
      parts::command(cudasync::warp_primitives::lesson()),
      parts::command(cudasync::cg_reduce::lesson()),
      parts::command(cudasync::named_barriers::lesson()),
      parts::command(cudasync::threadfence::lesson()),
      parts::command(cudasync::lock::lesson()),
      parts::command(cudasync::lockfree_barrier::lesson()),
      parts::command(cudasync::deadlock_demo::lesson()),
      parts::command(cudasync::multi_gpu::lesson()),
      {"list", "the lessons, and whether each can run here", CommandKind::tool, cudasync::commands::attach_list, {}},
      {"devices", "the GPUs this process can see, with their co-residency limits", CommandKind::tool,
       cudasync::commands::attach_devices, {}},
      {"explain", "a lesson's text: concept, the source's code and its bugs, what to run", CommandKind::tool,
       cudasync::commands::attach_explain, {}},
      {"sources", "the books, papers and manuals the lessons cite, in full", CommandKind::tool,
       cudasync::commands::attach_sources, {}},
      {"doctor", "what this machine has and lacks for each lesson, and what to install", CommandKind::tool,
       cudasync::commands::attach_doctor, {}},
      {"bench", "every lesson's --bench in one run, each technique beside its NVIDIA peer", CommandKind::tool,
       cudasync::commands::attach_bench, {}},
      // Last: help's checked argument names the commands attached before it.
      {"help", "a command's options and parts: cudasync help lock (the same as cudasync lock --help)",
       CommandKind::tool, cudasync::commands::attach_help, {}},
  };
  return cudasync::cli::run_app(argc, argv, commands);
}
