#pragma once
// Filled in at configure time (src/core/version.cpp.in).
namespace cudasync {
extern const char* const kToolVersion;
extern const char* const kGitSha;
extern const bool kCudaBuiltIn;
extern const char* const kCudaToolkitVersion;  // "" in a model-only build
extern const char* const kCudaArchitectures;   // CMAKE_CUDA_ARCHITECTURES ("75-real;...;90-virtual"); "" without CUDA
// NCCL (cmake/nccl.cmake): linked in for multi-gpu's NCCL rows, and the version of its nccl.h.
extern const bool kNcclBuiltIn;
extern const char* const kNcclVersion;  // "2.28.9"; "" when not built in
}  // namespace cudasync
