#pragma once
// Filled in at configure time (src/core/version.cpp.in).
namespace cudasync {
extern const char* const kToolVersion;
extern const char* const kGitSha;
extern const bool kCudaBuiltIn;
extern const char* const kCudaToolkitVersion;  // "" in a model-only build
extern const char* const kCudaArchitectures;   // CMAKE_CUDA_ARCHITECTURES ("75-real;...;90-virtual"); "" without CUDA
}  // namespace cudasync
