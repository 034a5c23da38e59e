// named-barriers' listing part: the PTX and SASS of every kernel of this lesson, as this build
// compiled them (core/kernel_listing), and checks that the barrier instructions are there.
#include <cstdlib>

#include "core/kernel_listing.hpp"
#include "core/report/text_format.hpp"
#include "techniques/named_barriers/lesson.hpp"

namespace cudasync::named_barriers {

std::vector<OpcodeExpectation> listing_expectations(int sm) {
  std::vector<OpcodeExpectation> expect = {{"groups_kernel", {"BAR.SYNC"}},
                                           {"pc_kernel", {"BAR.ARV", "BAR.SYNC"}},
                                           {"red_kernel", {"BAR.RED.POPC", "BAR.RED.AND", "BAR.RED.OR", "B2R.RESULT"}}};
  if (sm >= 90) expect.push_back({"cuda_barrier_pc_kernel", {"SYNCS.ARRIVE", "SYNCS.PHASECHK"}});
  else if (sm >= 80) expect.push_back({"cuda_barrier_pc_kernel", {"ATOMS.ARRIVE"}});
  return expect;
}

namespace {

struct KernelPart {
  const char* name;  // short kernel name
  const char* part;  // a key of the lesson's catalog
};
const KernelPart kKernelParts[] = {
    {"groups_kernel", "listing.groups-kernel"},
    {"pc_kernel", "listing.pc-kernel"},
    {"red_kernel", "listing.red-kernel"},
    {"cuda_barrier_pc_kernel", "listing.cuda-barrier-pc-kernel"},
    {"misuse_kernel", "listing.misuse-kernel"},
    {"cost_kernel<0>", "listing.cost-kernel-0"},
    {"cost_kernel<1>", "listing.cost-kernel-1"},
    {"cost_kernel<2>", "listing.cost-kernel-2"},
    {"cost_kernel<3>", "listing.cost-kernel-3"},
};
const char* kNamespace = "named_barriers";

// "groups_kernel" -> "groups-kernel"
std::string kebab(std::string s) {
  for (auto& c : s) c = c == '_' ? '-' : c;
  return s;
}

report::Table code_table(const char* id, const std::string& title, const std::vector<KernelCode>& codes,
                         const std::string& arch) {
  report::Table t(id, title);
  t.column("kernel", say("listing.kernel")).column("instructions", say("listing.instructions"));
  for (const auto& kp : kKernelParts)
    if (const KernelCode* k = find_kernel(codes, arch, kNamespace, kp.name))
      t.row({{"kernel", std::string(kp.name)}, {"instructions", distinct_instructions(k->instructions)}});
  return t;
}

}  // namespace

report::Section listing_section(const KernelListing& listing, const std::string& arch) {
  report::Section s("listing", say("listing.title"));
  s.paragraph(say("listing.about"));
  if (!listing.available) {
    s.note(listing.reason());
    return s;
  }
  const auto ptx_archs = listing.ptx_archs();
  std::vector<std::string> ptx_names;  // compute_90 for sm_90
  for (const auto& a : ptx_archs) ptx_names.push_back("compute_" + a.substr(3));
  const std::string ptx_arch = ptx_archs.empty() ? "" : ptx_archs.back();
  const auto or_none = [](const std::string& v) { return v.empty() ? say("listing.none") : v; };
  s.fact("sass-archs", say("listing.sass-archs"), or_none(report::join(listing.sass_archs(), ", ")));
  s.fact("ptx-archs", say("listing.ptx-archs"), or_none(report::join(ptx_names, ", ")));
  s.fact("sass-shown", say("listing.sass-shown"), or_none(arch));
  report::Table ptx = code_table("ptx", "PTX" + (ptx_arch.empty() ? "" : " (compute_" + ptx_arch.substr(3) + ")"),
                                 listing.ptx, ptx_arch);
  report::Table sass = code_table("sass", "SASS (" + arch + ")", listing.sass, arch);
  for (const auto& kp : kKernelParts) sass.legend.push_back(std::string(kp.name) + ": " + say(kp.part));
  if (!ptx.rows.empty()) s.add(std::move(ptx));
  if (!sass.rows.empty()) s.add(std::move(sass));
  if (arch.empty()) return s;
  for (const auto& e : listing_expectations(std::atoi(arch.c_str() + 3))) {
    const KernelCode* k = find_kernel(listing.sass, arch, kNamespace, e.kernel);
    const std::vector<std::string> ins = k ? k->instructions : std::vector<std::string>{};
    const auto missing = missing_opcodes(ins, e.opcodes);
    s.check(kebab(e.kernel) + "-opcodes",
            say("listing.compiled-to",
                {{"kernel", e.kernel}, {"opcodes", report::join(e.opcodes, ", ")}, {"arch", arch}}),
            missing.empty(),
            missing.empty() ? say("listing.sync-instructions", {{"count", ins.size()}})
                            : say("listing.missing", {{"opcodes", report::join(missing, ", ")}}));
  }
  return s;
}

report::Section listing_part(Run& run) {
  const KernelListing& listing = kernel_listing();
  return listing_section(listing, listing_sass_arch(listing, run.ctx.compute_capability()));
}

}  // namespace cudasync::named_barriers
