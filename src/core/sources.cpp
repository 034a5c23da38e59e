#include "core/sources.hpp"

#include <stdexcept>

namespace cudasync {

const std::vector<Source>& sources() {
  static const std::vector<Source> all = {
      {"fan-ch10", "Fan, ch. 10", "Fan Zheyong (樊哲勇)",
       "CUDA 编程：基础与实践 (CUDA Programming: Basics and Practice), chapter 10 \"线程束基本函数与协作组\" "
       "(warp-level functions and cooperative groups)",
       "Tsinghua University Press, 2020", "https://github.com/brucefan1983/CUDA-Programming (src/10-warp)",
       "warp shuffles, votes and __syncwarp (10.1-10.3), cooperative groups (10.4), the reduction ladder "
       "(10.2-10.5); the book's code is correct where a widely copied transcription has typos"},
      {"cuda-by-example", "CUDA by Example, App. A", "Jason Sanders, Edward Kandrot",
       "CUDA by Example: An Introduction to General-Purpose GPU Programming, Appendix A \"Advanced Atomics\"",
       "Addison-Wesley, 2010", "",
       "the atomicCAS spin lock and its Lock struct (A.1 \"Dot Product Revisited\", A.1.1 \"Atomic Locks\"; A.2, "
       "the hash table, serialises a warp's lanes around it); the pitfalls come from a well-known blog analysis "
       "of it"},
      {"xiao-feng", "Xiao & Feng 2010", "Shucai Xiao, Wu-chun Feng",
       "Inter-Block GPU Communication via Fast Barrier Synchronization",
       "IEEE International Symposium on Parallel & Distributed Processing (IPDPS), 2010, pp. 1-12", "",
       "the lock-based (goalVal += N) and lock-free (Arrayin/Arrayout) grid barriers"},
      {"so-docs", "SO Docs, inter-block communication", "Stack Overflow Documentation contributors",
       "CUDA: Inter-block communication (topics \"Last-block guard\" and \"Global work queue\")",
       "Stack Overflow Documentation (archived copies on riptutorial.com), 2016-2017", "",
       "the lastBlock guard with __syncthreads_or and the WorkQueue::fetch global work queue"},
      {"ptx-isa", "PTX ISA 9.0", "NVIDIA", "Parallel Thread Execution ISA, version 9.0 (CUDA 13.0)",
       "NVIDIA, 2025", "https://docs.nvidia.com/cuda/parallel-thread-execution/",
       "barrier{.cta} (bar.sync, bar.arrive, bar.red), membar / fence and their scopes, the memory consistency "
       "model"},
      {"cuda-guide", "CUDA C++ Programming Guide", "NVIDIA", "CUDA C++ Programming Guide (CUDA 13.0)", "NVIDIA, 2025",
       "https://docs.nvidia.com/cuda/cuda-c-programming-guide/",
       "warp shuffle, vote, match and reduce functions, cooperative groups, memory fence functions, independent "
       "thread scheduling, system-scope atomics (cuda::atomic_ref, thread_scope_system), peer-to-peer memory "
       "access"},
      {"nccl", "NCCL documentation", "NVIDIA",
       "NVIDIA Collective Communication Library (NCCL) Documentation: User Guide and API (NCCL 2.28)", "NVIDIA, 2025",
       "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/",
       "ncclCommInitAll and group calls for several GPUs from one thread, ncclAllReduce and its CUDA stream "
       "semantics, the environment variables (NCCL_NVLS_ENABLE: NVLink SHARP)"},
      {"lustig-2019", "Lustig et al. 2019", "Daniel Lustig, Sameer Sahasrabuddhe, Olivier Giroux",
       "A Formal Analysis of the NVIDIA PTX Memory Consistency Model",
       "ASPLOS 2019 (ACM International Conference on Architectural Support for Programming Languages and "
       "Operating Systems), pp. 257-270", "https://doi.org/10.1145/3297858.3304043",
       "the axiomatic PTX memory model that threadfence's litmus judge enumerates, and the rule multi-gpu's "
       "judge applies at system scope"},
      {"alglave-2015", "Alglave et al. 2015",
       "Jade Alglave, Mark Batty, Alastair F. Donaldson, Ganesh Gopalakrishnan, Jeroen Ketema, Daniel Poetzl, "
       "Tyler Sorensen, John Wickerson",
       "GPU Concurrency: Weak Behaviours and Programming Assumptions", "ASPLOS 2015", "",
       "stale reads in message passing and through the CUDA by Example lock on real GPUs"},
      {"sorensen-2016", "Sorensen et al. 2016",
       "Tyler Sorensen, Alastair F. Donaldson, Mark Batty, Ganesh Gopalakrishnan, Zvonimir Rakamarić",
       "Portable Inter-workgroup Barrier Synchronisation for GPUs",
       "OOPSLA 2016 (ACM SIGPLAN Conference on Object-Oriented Programming, Systems, Languages, and Applications), "
       "pp. 39-58",
       "https://doi.org/10.1145/3022671.2984032", "occupancy-bound grid barriers: why a barrier over more blocks than fit deadlocks"},
      {"mellor-crummey-scott-1991", "Mellor-Crummey & Scott 1991", "John M. Mellor-Crummey, Michael L. Scott",
       "Algorithms for Scalable Synchronization on Shared-Memory Multiprocessors",
       "ACM Transactions on Computer Systems 9(1), 1991, pp. 21-65", "https://doi.org/10.1145/103727.103729",
       "the ticket lock with proportional back-off of the lock lesson's benchmark"},
      {"hendler-2010", "Hendler et al. 2010", "Danny Hendler, Itai Incze, Nir Shavit, Moran Tzafrir",
       "Flat Combining and the Synchronization-Parallelism Tradeoff", "SPAA 2010", "",
       "the combining lock: one holder serves every published request"},
      {"cuda-13-notes", "CUDA 13.0 Release Notes", "NVIDIA", "CUDA Toolkit 13.0 Release Notes, \"Deprecated Architectures\"",
       "NVIDIA, 2025", "https://docs.nvidia.com/cuda/archive/13.0.0/cuda-toolkit-release-notes/",
       "Maxwell, Pascal and Volta removed from offline compilation in CUDA 13.0; the 12.x toolkits still build "
       "for them"},
      {"cuda-cg-headers", "CUDA 13.0 cooperative_groups headers", "NVIDIA",
       "cooperative_groups.h and cooperative_groups/details/ (sync.h, info.h) of the CUDA Toolkit 13.0",
       "NVIDIA, 2025", "the CUDA Toolkit's include/ folder",
       "how grid.sync() is built (details/sync.h); grid_group::is_valid() and sync(), which calls _CG_ABORT(), "
       "__trap() outside a debug build, when the grid is not valid"},
      {"cub-docs", "CUB documentation", "NVIDIA", "CUB API documentation (CUDA Core Compute Libraries, CCCL)",
       "NVIDIA, 2025", "https://nvidia.github.io/cccl/cub/",
       "cub::DeviceReduce::Sum and its run-to-run determinism, the peer of the cg-reduce ladder"},
      {"cccl-3-migration", "CCCL 3.0 migration guide", "NVIDIA", "CCCL 2.x to CCCL 3.0 migration guide",
       "NVIDIA, 2025", "https://nvidia.github.io/cccl/cccl/3.0_migration_guide.html",
       "cub::Sum() removed for cuda::std::plus<>"},
      {"compute-sanitizer", "Compute Sanitizer documentation", "NVIDIA", "Compute Sanitizer User Manual (CUDA 13.0)",
       "NVIDIA, 2025", "https://docs.nvidia.com/compute-sanitizer/ComputeSanitizer/index.html",
       "the memcheck, racecheck and synccheck tools the lessons run beside a part"},
      {"higham-2002", "Higham 2002", "Nicholas J. Higham", "Accuracy and Stability of Numerical Algorithms, 2nd ed.",
       "SIAM, 2002", "https://doi.org/10.1137/1.9780898718027",
       "chapter 4, summation: the error bound gamma_d of a sum with d levels of additions"},
      {"coffman-1971", "Coffman et al. 1971", "Edward G. Coffman, Michael J. Elphick, Arie Shoshani", "System Deadlocks",
       "ACM Computing Surveys 3(2), 1971, pp. 67-78", "https://doi.org/10.1145/356586.356588",
       "the four conditions a deadlock needs, and the wait-for graph"},
      {"gpu-puzzles", "GPU Puzzles", "Sasha Rush", "GPU Puzzles", "2022", "https://github.com/srush/GPU-Puzzles",
       "the shape of the kernel exercises: a short function around one runner that checks it"},
      {"volta-whitepaper", "Volta whitepaper", "NVIDIA", "NVIDIA Tesla V100 GPU Architecture", "NVIDIA, 2017",
       "https://images.nvidia.com/content/volta-architecture/pdf/volta-architecture-whitepaper.pdf",
       "independent thread scheduling: why a spin lock inside a warp no longer deadlocks on sm_70 and newer"},
  };
  return all;
}

const Source& source(std::string_view key) {
  for (const auto& s : sources())
    if (s.key == key) return s;
  throw std::logic_error("no source with key '" + std::string(key) + "'");
}

}  // namespace cudasync
