#include "commands/devices.hpp"

#include "core/version.hpp"

namespace cudasync::commands {

namespace {

using I = std::int64_t;

report::Report run_devices(const RunContext& ctx) {
  const GpuProbe& p = *ctx.probe;
  report::Report r;
  r.technique = "devices";
  r.title = "cudasync: GPUs visible to this process";
  report::Section host;
  host.id = "host";
  host.title = "CUDA on this machine";
  host.facts.push_back({"CUDA built in", std::string(kCudaBuiltIn ? "yes" : "no (model-only binary)"), "", ""});
  host.facts.push_back({"driver version", version_string(p.driver_version), "", "the CUDA version the driver supports"});
  host.facts.push_back({"runtime version", version_string(p.runtime_version), "", "linked statically"});
  host.facts.push_back({"visible GPUs", static_cast<I>(p.devices.size()), "", p.devices.empty() ? p.reason : ""});
  r.sections.push_back(std::move(host));
  for (const auto& d : p.devices) {
    report::Section s;
    s.id = "device_" + std::to_string(d.index);
    s.title = "GPU " + std::to_string(d.index) + ": " + d.name;
    s.facts = {
        {"compute capability", d.cc_string(), "", ""},
        {"SMs", static_cast<I>(d.sm_count), "", ""},
        {"warp size", static_cast<I>(d.warp_size), "", ""},
        {"max threads per block", static_cast<I>(d.max_threads_per_block), "", ""},
        {"max threads per SM", static_cast<I>(d.max_threads_per_sm), "", ""},
        {"max resident blocks per SM", static_cast<I>(d.max_blocks_per_sm), "", "hardware limit; the occupancy API gives a kernel's own"},
        {"max resident threads on the GPU", static_cast<I>(d.max_threads_per_sm) * d.sm_count, "", "SMs x threads per SM"},
        {"shared memory per SM", static_cast<I>(d.shared_mem_per_sm), "", "bytes"},
        {"registers per SM", static_cast<I>(d.regs_per_sm), "", ""},
        {"L2 cache", static_cast<I>(d.l2_bytes), "", "bytes"},
        {"SM clock", static_cast<I>(d.clock_khz), "", d.clock_khz ? "kHz, as the runtime reports it" : "not reported"},
        {"cooperative launch", std::string(d.cooperative_launch ? "yes" : "no"), "", "grid.sync() needs it"},
    };
    r.sections.push_back(std::move(s));
  }
  return r;
}

}  // namespace

cli::Runner attach_devices(CLI::App&) { return run_devices; }

}  // namespace cudasync::commands
