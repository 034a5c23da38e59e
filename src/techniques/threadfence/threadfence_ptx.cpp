// Part ptx: what each fence and atomic compiled to in this build (one-fence probe kernels, read
// back at build time with cuobjdump), beside the PTX ISA's membar levels.
#include <algorithm>

#include "techniques/threadfence/threadfence_lesson.hpp"

namespace cudasync::threadfence {

namespace {

struct Probe {
  const char* id;                     // kebab-case: the check ptx-<id>, the kernel probe_<id, with _>
  const char* cuda;
  const char* maps_to;                // what the PTX ISA / the atomics ABI maps it to
  std::vector<std::string> ptx_must;  // opcodes the PTX must contain (prefixes)
};

const std::vector<Probe>& probes() {
  static const std::vector<Probe> p = {
      {"threadfence-block", "__threadfence_block()", "membar.cta = fence.sc.cta", {"membar.cta"}},
      {"threadfence", "__threadfence()", "membar.gl = fence.sc.gpu", {"membar.gl"}},
      {"threadfence-system", "__threadfence_system()", "membar.sys = fence.sc.sys", {"membar.sys"}},
      {"fence-sc-gpu", "asm(\"fence.sc.gpu;\")", "fence.sc.gpu", {"fence.sc.gpu"}},
      {"fence-acq-rel-gpu", "atomic_thread_fence(acq_rel)", "fence.acq_rel.gpu", {"fence.acq_rel.gpu"}},
      {"store-release", "ref.store(1, release)", "st.release.gpu", {"st.release.gpu"}},
      {"load-acquire", "ref.load(acquire)", "ld.acquire.gpu", {"ld.acquire.gpu"}},
      {"store-seq-cst", "ref.store(1, seq_cst)", "fence.sc.gpu; st.relaxed.gpu", {"fence.sc.gpu", "st.relaxed.gpu"}},
      {"volatile", "volatile store; volatile load", "st.volatile; ld.volatile", {"st.volatile", "ld.volatile"}},
      {"atomic-add", "v = atomicAdd(p, 1)", "atom.add (relaxed, gpu)", {"atom."}},
      {"atomic-add-unused", "atomicAdd(p, 1), v unused", "atom.add (relaxed, gpu)", {"atom."}},
      {"fetch-add-acq-rel", "ref.fetch_add(1, acq_rel)", "atom.acq_rel.gpu.add", {"atom."}},
  };
  return p;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The instructions of a probe's kernel (probe_<id, with _>) among `codes` (listing.sass or
// listing.ptx) for `arch`; `with_memory`: with the memory accesses among the fences.
std::vector<std::string> code_of(const std::vector<KernelCode>& codes, const std::string& arch,
                                 const std::string& probe_id, bool with_memory) {
  std::string kernel = "probe_" + probe_id;
  std::replace(kernel.begin(), kernel.end(), '-', '_');
  const KernelCode* k = find_kernel(codes, arch, "threadfence", kernel);
  if (!k) return {};
  return with_memory ? k->ordering : k->instructions;
}

// The facts, tables and checks of the probes, from a listing this build has.
void add_probes(report::Section& s, const KernelListing& listing, const std::string& arch) {
  const std::vector<std::string> targets = listing.ptx_archs();  // the last one is shown
  const std::string ptx_arch = targets.empty() ? "" : targets.back();
  s.fact("sass-arch", "SASS shown", arch.empty() ? std::string("none in this build") : arch);
  s.fact("ptx-arch", "PTX shown", ptx_arch.empty() ? std::string("none in this build") : "compute_" + ptx_arch.substr(3));
  report::Table ptx("ptx", "PTX: what the compiler emitted for each probe");
  ptx.column("cuda", "CUDA C++").column("maps-to", "PTX ISA / atomics ABI").column("ptx", "PTX in this build");
  report::Table sass("sass", "SASS (" + (arch.empty() ? std::string("none in this build") : arch) +
                                 "): what the assembler made of it");
  sass.column("cuda", "CUDA C++").column("sass", "SASS");
  for (const auto& p : probes()) {
    ptx.row({{"cuda", p.cuda},
             {"maps-to", p.maps_to},
             {"ptx", distinct_instructions(code_of(listing.ptx, ptx_arch, p.id, true))}});
    if (!arch.empty())
      sass.row({{"cuda", p.cuda}, {"sass", distinct_instructions(code_of(listing.sass, arch, p.id, true))}});
  }
  ptx.legend.push_back("ref: cuda::atomic_ref<unsigned, cuda::thread_scope_device>;");
  ptx.legend.push_back("atomic_thread_fence at device scope");
  ptx.legend.push_back("membar.{cta,gl,sys} is fence.sc.{cta,gpu,sys} on sm_70 and newer");
  sass.legend.push_back("MEMBAR.SC / .ALL: the fence; ERRBAR: waits for the earlier accesses");
  sass.legend.push_back("to be acknowledged; CCTL.IVALL: read as invalidating the SM's L1, so");
  sass.legend.push_back("later plain loads read from L2 (inferred from the listing and the");
  sass.legend.push_back("measurements: SASS is not documented); .STRONG.GPU / .STRONG.SYS: a");
  sass.legend.push_back("relaxed or volatile access at that scope (plain ones are not listed)");
  s.add(std::move(ptx));
  if (!arch.empty()) {
    s.add(std::move(sass));
    // Which fences send the plain loads after them past the L1: what the litmus parts show.
    std::string l1;
    for (const auto& p : probes())
      if (has_opcode(code_of(listing.sass, arch, p.id, true), "CCTL.IVALL")) l1 += (l1.empty() ? "" : ", ") + std::string(p.cuda);
    s.fact("l1-invalidated-by", "invalidate the L1 (CCTL.IVALL)", l1.empty() ? std::string("none") : l1, report::Format::plain,
           "in this build's SASS for " + arch);
  }
  for (const auto& p : probes()) {
    const auto code = code_of(listing.ptx, ptx_arch, p.id, true);
    const auto missing = missing_opcodes(code, p.ptx_must);
    s.check(std::string("ptx-") + p.id, std::string(p.cuda) + " compiles to " + joined(p.ptx_must) + " in PTX",
            missing.empty(),
            missing.empty() ? distinct_instructions(code)
                            : "missing: " + joined(missing) + " (PTX: " + distinct_instructions(code) + ")");
  }
  if (!arch.empty()) {
    const auto a = code_of(listing.sass, arch, "threadfence", false);
    const auto b = code_of(listing.sass, arch, "fence-sc-gpu", false);
    s.check("membar-gl-is-fence-sc-gpu", "membar.gl and fence.sc.gpu are the same instruction (" + arch + ")",
            !a.empty() && a == b,
            "__threadfence(): " + distinct_instructions(a) + "; fence.sc.gpu: " + distinct_instructions(b));
  }
}

}  // namespace

report::Section ptx_section(const KernelListing& listing, const std::string& arch) {
  report::Section s("ptx", "PTX and SASS: what each fence and atomic compiles to in this build");
  s.paragraph(
      "The PTX ISA's description of membar before sm_70 reads \"waits until prior memory accesses are "
      "performed\" at the CTA, GPU or system level. Since sm_70 the PTX ISA defines membar as a synonym of "
      "fence.sc with the scopes cta, gpu and sys: a fence in the memory model, not a wait for anyone. The rows "
      "below are one-fence probe kernels of this binary, read back at build time with cuobjdump: the PTX the "
      "compiler emitted and the SASS the assembler made of it (fences, atomics, and volatile, relaxed, acquire or "
      "release accesses; plain loads and stores are left out).");
  if (listing.available) add_probes(s, listing, arch);
  else s.note(listing.reason);
  return s;
}

report::Section ptx_part(Run& run) {
  const KernelListing& listing = kernel_listing();
  return ptx_section(listing, listing_sass_arch(listing, run.ctx.compute_capability()));
}

}  // namespace cudasync::threadfence
