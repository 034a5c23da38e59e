#pragma once
// Filled in at configure time (src/core/version.cpp.in).
namespace cudasync {
extern const char* const kToolVersion;
extern const char* const kGitSha;
extern const bool kCudaBuiltIn;
extern const char* const kCudaToolkitVersion;  // "" in a model-only build
extern const char* const kCudaArchitectures;   // CMAKE_CUDA_ARCHITECTURES ("75-real;...;90-virtual"); "" without CUDA
// NCCL (cmake/nccl.cmake): multi-gpu's NCCL rows are built in (nccl.h was found), the version of
// that nccl.h, and the library they load at run time with dlopen: its soname first, then the file
// CMake found. The binary does not link NCCL.
extern const bool kNcclBuiltIn;
extern const char* const kNcclVersion;  // "2.28.9"; "" when not built in
extern const char* const kNcclSoname;   // "libnccl.so.2"; ""
extern const char* const kNcclLibrary;  // "/usr/local/cuda-13.0/lib/libnccl.so.2.28.9"; ""
}  // namespace cudasync
