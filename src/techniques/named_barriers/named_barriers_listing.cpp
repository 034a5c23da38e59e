// Part listing: the PTX and SASS of every kernel of this lesson, as this build compiled them
// (core/kernel_listing), and checks that the barrier instructions are there.
#include <cstdlib>

#include "core/kernel_listing.hpp"
#include "techniques/named_barriers/named_barriers_judge.hpp"
#include "techniques/named_barriers/named_barriers_lesson.hpp"

namespace cudasync::named_barriers {

namespace {

struct KernelPart {
  const char* name;  // short kernel name
  const char* part;
};
const KernelPart kKernelParts[] = {
    {"groups_kernel", "bar-sync: two groups, bar.sync id, count"},
    {"pc_kernel", "producer-consumer: bar.arrive + bar.sync"},
    {"red_kernel", "bar-red: __syncthreads_count/and/or, bar.red"},
    {"cuda_barrier_pc_kernel", "cuda-barrier: cuda::barrier arrive/wait"},
    {"misuse_kernel", "misuse: bad count, rescue bar.arrive"},
    {"cost_kernel<0>", "cost: __syncthreads()"},
    {"cost_kernel<1>", "cost: bar.sync 1|2, half"},
    {"cost_kernel<2>", "cost: bar.arrive + bar.sync"},
    {"cost_kernel<3>", "cost: cuda::barrier arrive_and_wait"},
};
const char* kNamespace = "named_barriers";

std::string joined(const std::vector<std::string>& items, const std::string& prefix = "") {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + prefix + i;
  return s;
}

// "groups_kernel" -> "groups-kernel"
std::string kebab(std::string s) {
  for (auto& c : s) c = c == '_' ? '-' : c;
  return s;
}

report::Table code_table(const char* id, const std::string& title, const std::vector<KernelCode>& codes,
                         const std::string& arch) {
  report::Table t(id, title);
  t.column("kernel", "kernel").column("instructions", "instructions (each once, xN: how often)");
  for (const auto& kp : kKernelParts)
    if (const KernelCode* k = find_kernel(codes, arch, kNamespace, kp.name))
      t.row({{"kernel", std::string(kp.name)}, {"instructions", distinct_instructions(k->instructions)}});
  return t;
}

}  // namespace

report::Section listing_section(const KernelListing& listing, const std::string& arch) {
  report::Section s("listing", "PTX and SASS: what these kernels compiled to in this build");
  s.paragraph(
      "Read back at build time from the object files linked into this binary (cuobjdump -ptx and -sass), keeping "
      "only barrier, fence and mbarrier instructions. NVIDIA does not document SASS; read from the opcodes' names "
      "and from where they stand, BAR.SYNC is bar.sync, BAR.ARV is bar.arrive, BAR.RED.POPC/AND/OR with "
      "B2R.RESULT is bar.red, and SYNCS.* (sm_90) and ATOMS.ARRIVE (sm_80) are the mbarrier operations behind "
      "cuda::barrier.");
  if (!listing.available) {
    s.note(listing.reason);
    return s;
  }
  const auto ptx_archs = listing.ptx_archs();
  std::vector<std::string> ptx_numbers;
  for (const auto& a : ptx_archs) ptx_numbers.push_back(a.substr(3));
  const std::string ptx_arch = ptx_archs.empty() ? "" : ptx_archs.back();
  const auto or_none = [](const std::string& v) { return v.empty() ? std::string("none") : v; };
  s.fact("sass-archs", "SASS in this build", or_none(joined(listing.sass_archs())));
  s.fact("ptx-archs", "PTX in this build", or_none(joined(ptx_numbers, "compute_")));
  s.fact("sass-shown", "SASS shown", or_none(arch));
  report::Table ptx = code_table("ptx", "PTX" + (ptx_arch.empty() ? "" : " (compute_" + ptx_arch.substr(3) + ")"),
                                 listing.ptx, ptx_arch);
  report::Table sass = code_table("sass", "SASS (" + arch + ")", listing.sass, arch);
  for (const auto& kp : kKernelParts) sass.legend.push_back(std::string(kp.name) + ": " + kp.part);
  if (!ptx.rows.empty()) s.add(std::move(ptx));
  if (!sass.rows.empty()) s.add(std::move(sass));
  if (arch.empty()) return s;
  for (const auto& e : listing_expectations(std::atoi(arch.c_str() + 3))) {
    const KernelCode* k = find_kernel(listing.sass, arch, kNamespace, e.kernel);
    const std::vector<std::string> ins = k ? k->instructions : std::vector<std::string>{};
    const auto missing = missing_opcodes(ins, e.opcodes);
    s.check(kebab(e.kernel) + "-opcodes", e.kernel + " compiled to " + joined(e.opcodes) + " (" + arch + ")",
            missing.empty(),
            missing.empty() ? std::to_string(ins.size()) + " synchronization instructions" : "missing: " + joined(missing));
  }
  return s;
}

report::Section listing_part(Run& run) {
  const KernelListing& listing = kernel_listing();
  return listing_section(listing, listing_sass_arch(listing, run.ctx.compute_capability()));
}

}  // namespace cudasync::named_barriers
