#pragma once
// Filled in at configure time (src/core/version.cpp.in).
namespace cudasync {
extern const char* const kToolVersion;
extern const char* const kGitSha;
extern const bool kCudaBuiltIn;
extern const char* const kCudaToolkitVersion;  // "" in a model-only build
}  // namespace cudasync
