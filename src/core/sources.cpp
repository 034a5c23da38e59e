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
       "the atomicCAS spin lock (A.2) and its Lock struct; the pitfalls come from a well-known blog analysis of it"},
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
