#include "core/sources.hpp"

#include <stdexcept>

namespace cudasync {

const std::vector<Source>& sources() {
  static const std::vector<Source> all = {
      {"fan-ch10", "Fan, ch. 10", "Fan Zheyong (樊哲勇)",
       "CUDA 编程：基础与实践 (CUDA Programming: Basics and Practice), chapter 10 \"线程束基本函数与协作组\" "
       "(warp-level functions and cooperative groups)",
       "Tsinghua University Press, 2020", "https://github.com/brucefan1983/CUDA-Programming (src/10-warp)"},
      {"cuda-by-example", "CUDA by Example, App. A", "Jason Sanders, Edward Kandrot",
       "CUDA by Example: An Introduction to General-Purpose GPU Programming, Appendix A \"Advanced Atomics\"",
       "Addison-Wesley, 2010", ""},
      {"xiao-feng", "Xiao & Feng 2010", "Shucai Xiao, Wu-chun Feng",
       "Inter-Block GPU Communication via Fast Barrier Synchronization",
       "IEEE International Symposium on Parallel & Distributed Processing (IPDPS), 2010, pp. 1-12", ""},
      {"so-docs", "SO Docs, inter-block communication", "Stack Overflow Documentation contributors",
       "CUDA: Inter-block communication (topics \"Last-block guard\" and \"Global work queue\")",
       "Stack Overflow Documentation (archived copies on riptutorial.com), 2016-2017", ""},
      {"ptx-isa", "PTX ISA 9.0", "NVIDIA", "Parallel Thread Execution ISA, version 9.0 (CUDA 13.0)",
       "NVIDIA, 2025", "https://docs.nvidia.com/cuda/parallel-thread-execution/"},
      {"cuda-guide", "CUDA C++ Programming Guide", "NVIDIA", "CUDA C++ Programming Guide (CUDA 13.0)", "NVIDIA, 2025",
       "https://docs.nvidia.com/cuda/cuda-c-programming-guide/"},
      {"nccl", "NCCL documentation", "NVIDIA",
       "NVIDIA Collective Communication Library (NCCL) Documentation: User Guide and API (NCCL 2.28)", "NVIDIA, 2025",
       "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"},
      {"lustig-2019", "Lustig et al. 2019", "Daniel Lustig, Sameer Sahasrabuddhe, Olivier Giroux",
       "A Formal Analysis of the NVIDIA PTX Memory Consistency Model",
       "ASPLOS 2019 (ACM International Conference on Architectural Support for Programming Languages and "
       "Operating Systems), pp. 257-270", "https://doi.org/10.1145/3297858.3304043"},
      {"alglave-2015", "Alglave et al. 2015",
       "Jade Alglave, Mark Batty, Alastair F. Donaldson, Ganesh Gopalakrishnan, Jeroen Ketema, Daniel Poetzl, "
       "Tyler Sorensen, John Wickerson",
       "GPU Concurrency: Weak Behaviours and Programming Assumptions", "ASPLOS 2015", ""},
      {"sorensen-2016", "Sorensen et al. 2016",
       "Tyler Sorensen, Alastair F. Donaldson, Mark Batty, Ganesh Gopalakrishnan, Zvonimir Rakamarić",
       "Portable Inter-workgroup Barrier Synchronisation for GPUs",
       "OOPSLA 2016 (ACM SIGPLAN Conference on Object-Oriented Programming, Systems, Languages, and Applications), "
       "pp. 39-58",
       "https://doi.org/10.1145/3022671.2984032"},
      {"mellor-crummey-scott-1991", "Mellor-Crummey & Scott 1991", "John M. Mellor-Crummey, Michael L. Scott",
       "Algorithms for Scalable Synchronization on Shared-Memory Multiprocessors",
       "ACM Transactions on Computer Systems 9(1), 1991, pp. 21-65", "https://doi.org/10.1145/103727.103729"},
      {"hendler-2010", "Hendler et al. 2010", "Danny Hendler, Itai Incze, Nir Shavit, Moran Tzafrir",
       "Flat Combining and the Synchronization-Parallelism Tradeoff", "SPAA 2010", ""},
      {"cuda-13-notes", "CUDA 13.0 Release Notes", "NVIDIA", "CUDA Toolkit 13.0 Release Notes, \"Deprecated Architectures\"",
       "NVIDIA, 2025", "https://docs.nvidia.com/cuda/archive/13.0.0/cuda-toolkit-release-notes/"},
      {"cuda-cg-headers", "CUDA 13.0 cooperative_groups headers", "NVIDIA",
       "cooperative_groups.h and cooperative_groups/details/ (sync.h, info.h) of the CUDA Toolkit 13.0",
       "NVIDIA, 2025", "the CUDA Toolkit's include/ folder"},
      {"cub-docs", "CUB documentation", "NVIDIA", "CUB API documentation (CUDA Core Compute Libraries, CCCL)",
       "NVIDIA, 2025", "https://nvidia.github.io/cccl/cub/"},
      {"cccl-3-migration", "CCCL 3.0 migration guide", "NVIDIA", "CCCL 2.x to CCCL 3.0 migration guide",
       "NVIDIA, 2025", "https://nvidia.github.io/cccl/cccl/3.0_migration_guide.html"},
      {"compute-sanitizer", "Compute Sanitizer documentation", "NVIDIA", "Compute Sanitizer User Manual (CUDA 13.0)",
       "NVIDIA, 2025", "https://docs.nvidia.com/compute-sanitizer/ComputeSanitizer/index.html"},
      {"higham-2002", "Higham 2002", "Nicholas J. Higham", "Accuracy and Stability of Numerical Algorithms, 2nd ed.",
       "SIAM, 2002", "https://doi.org/10.1137/1.9780898718027"},
      {"coffman-1971", "Coffman et al. 1971", "Edward G. Coffman, Michael J. Elphick, Arie Shoshani", "System Deadlocks",
       "ACM Computing Surveys 3(2), 1971, pp. 67-78", "https://doi.org/10.1145/356586.356588"},
      {"gpu-puzzles", "GPU Puzzles", "Sasha Rush", "GPU Puzzles", "2022", "https://github.com/srush/GPU-Puzzles"},
      {"volta-whitepaper", "Volta whitepaper", "NVIDIA", "NVIDIA Tesla V100 GPU Architecture", "NVIDIA, 2017",
       "https://images.nvidia.com/content/volta-architecture/pdf/volta-architecture-whitepaper.pdf"},
  };
  return all;
}

const Source& source(std::string_view key) {
  for (const auto& s : sources())
    if (s.key == key) return s;
  throw std::logic_error("no source with key '" + std::string(key) + "'");
}

}  // namespace cudasync
