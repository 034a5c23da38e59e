#pragma once
// The synchronization instructions of cudasync's own kernels, as this build compiled them: read
// back from the kernels' object files by cuobjdump at build time (cmake/kernel_listing.cmake),
// filtered to barrier, fence and mbarrier instructions (and, apart, the memory accesses they order
// and the warp-level exchanges), and embedded. A lesson picks its kernels
// by name. Plain C++: no CUDA needed to read it, so a CUDA build shows it even without a GPU.
#include <string>
#include <utility>
#include <vector>

#include "core/words/catalog.hpp"
#include "core/words/language.hpp"

namespace cudasync {

struct KernelListingData {
  bool available;
  const char* reason;   // why there is no listing, when !available: a key of core's catalog (listing.*)
  const char* detail;   // what the tool said, when it failed ({error} in the sentence)
  const char* tool;     // the cuobjdump that made it
  const char* records;  // "S arch sm_90\nS fn <mangled>\nS BAR.SYNC 0x1, R0\nM ...\nW ...\nP ...": see kernel_listing_run.cmake
};
const KernelListingData& kernel_listing_data();  // generated

struct KernelCode {
  std::string arch;                       // "sm_90" (SASS) or the PTX target "sm_90"
  std::string function;                   // mangled name, as cuobjdump prints it
  std::vector<std::string> instructions;  // barriers, fences, mbarrier: in program order
  // The same, with the memory accesses the memory model orders among them (atomics, reductions,
  // volatile / relaxed / acquire / release loads and stores; SASS: ATOM*, RED*, .STRONG): what a
  // fence or an atomic compiled to, in program order.
  std::vector<std::string> ordering;
  // SASS only: the warp-level exchanges (SHFL, VOTE, MATCH, REDUX) in program order: how many
  // SHFL a 64-bit shuffle takes, whether a warp sum became one REDUX.
  std::vector<std::string> warp;
};

struct KernelListing {
  bool available = false;
  words::Entry why;  // why there is no listing, in English and Chinese
  std::string reason() const { return why.in(words::language()); }  // in the run's language
  std::vector<KernelCode> sass;  // one entry per (arch, function)
  std::vector<KernelCode> ptx;
  std::vector<std::string> sass_archs() const;  // in the order the build lists them, without repeats
  std::vector<std::string> ptx_archs() const;
};

// Parses the records format; unknown lines are ignored.
KernelListing parse_kernel_listing(const std::string& records);
// This binary's listing.
const KernelListing& kernel_listing();
// The SASS arch a run on a GPU of `compute_capability` shows: "sm_<cc>" when the build has it,
// else the build's newest ("" when the listing has no SASS). 0: no GPU, the newest.
std::string listing_sass_arch(const KernelListing& listing, int compute_capability);

// "cudasync::x::(anonymous namespace)::foo_kernel<2>(int, int*)" -> "foo_kernel<2>": the demangled
// name without namespaces and parameters (the mangled name itself when it does not demangle).
std::string short_kernel_name(const std::string& mangled);

// A kernel's instructions as one line: each distinct one once, in the order it first appears, with
// how often it appears (unrolled loops repeat the same barrier or fence many times):
// "BAR.SYNC.DEFER_BLOCKING 0x1 (x4); MEMBAR.ALL.GPU". "(none)" for none.
std::string distinct_instructions(const std::vector<std::string>& instructions);

// The kernel `name` (its short_kernel_name: "groups_kernel", "cost_kernel<2>") of the lesson whose
// kernels live in namespace cudasync::<lesson_namespace> ("named_barriers"), compiled for `arch`,
// among `codes` (listing.sass or listing.ptx); nullptr when the listing does not have it.
const KernelCode* find_kernel(const std::vector<KernelCode>& codes, const std::string& arch,
                              const std::string& lesson_namespace, const std::string& name);

// An instruction's opcode: its first word, after a predicate guard ("@P0 SYNCS.ARRIVE.TRANS64 R4" ->
// "SYNCS.ARRIVE.TRANS64").
std::string opcode_of(const std::string& instruction);
// Whether some instruction's opcode starts with `prefix` ("BAR.RED.POPC" finds "BAR.RED.POPC.DEFER_BLOCKING").
bool has_opcode(const std::vector<std::string>& instructions, const std::string& prefix);
// The prefixes of `must` that no instruction's opcode starts with, in must's order.
std::vector<std::string> missing_opcodes(const std::vector<std::string>& instructions,
                                         const std::vector<std::string>& must);
// Each opcode once, in the order it first appears, with how often it appears.
std::vector<std::pair<std::string, int>> opcode_counts(const std::vector<std::string>& instructions);

}  // namespace cudasync
