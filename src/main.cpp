// cudasync: one table of commands. A new lesson is a new folder under techniques/ and one row here.
#include "commands/devices.hpp"
#include "commands/explain.hpp"
#include "commands/list.hpp"
#include "core/cli/app.hpp"
#include "techniques/cg_reduce/cg_reduce_lesson.hpp"
#include "techniques/deadlock_demo/deadlock_demo_lesson.hpp"
#include "techniques/lock/lock_lesson.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"
#include "techniques/named_barriers/named_barriers_lesson.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"
#include "techniques/warp_primitives/warp_primitives_lesson.hpp"

int main(int argc, char** argv) {
  using cudasync::cli::CommandKind;
  const std::vector<cudasync::cli::Command> commands = {
      {"warp-primitives", "shuffles, votes, match, reduce and __syncwarp, lane by lane (seed 002, 10.1-10.3)",
       CommandKind::lesson, cudasync::warp_primitives::attach},
      {"cg-reduce", "the reduction ladder, rung by rung: shared, shuffles, cg, two-pass, grid.sync, CUB (seed 002, 10.2-10.5)",
       CommandKind::lesson, cudasync::cg_reduce::attach},
      {"named-barriers", "bar.sync / bar.arrive / bar.red in one block, and cuda::barrier (seed 004, PTX bar)",
       CommandKind::lesson, cudasync::named_barriers::attach},
      {"lock", "the CUDA-by-Example spin lock, its four pitfalls on the GPU, and faster correct locks (seed 001)",
       CommandKind::lesson, cudasync::lock::attach},
      {"threadfence", "fences in litmus tests, their scopes down to PTX, lastBlock and WorkQueue (seeds 000, 001, 003, 004)",
       CommandKind::lesson, cudasync::threadfence::attach},
      {"lockfree-barrier", "grid barriers: relaunch, graph, Xiao & Feng's two, grid.sync and a faster one (seed 000)",
       CommandKind::lesson, cudasync::lockfree_barrier::attach},
      {"deadlock-demo", "every classic GPU sync deadlock, run safely under a deadline: who was stuck, on what, and the fix",
       CommandKind::lesson, cudasync::deadlock_demo::attach},
      {"list", "the lessons, and whether each can run here", CommandKind::tool, cudasync::commands::attach_list},
      {"devices", "the GPUs this process can see, with their co-residency limits", CommandKind::tool,
       cudasync::commands::attach_devices},
      {"explain", "a lesson's text: concept, the seed's code and its bugs, what to run", CommandKind::tool,
       cudasync::commands::attach_explain},
  };
  return cudasync::cli::run_app(argc, argv, commands);
}
