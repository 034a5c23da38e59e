#include "core/backend.hpp"

#include "core/errors.hpp"
#include "core/words/words.hpp"

namespace cudasync {

namespace {

// The choice's reason in English (for the JSON) and in the run's language (for the log); `why`, a
// reason of the probe's, in the same language as the sentence around it.
void give_reason(BackendChoice& c, std::string_view key, const words::Args& args = {},
                 const words::Entry* why = nullptr) {
  words::Args en = args, run = args;
  if (why) {
    en.emplace_back("why", why->en);
    run.emplace_back("why", why->in(words::language()));
  }
  c.reason = words::say_in(words::Lang::en, "core", key, en);
  c.said = words::core(key, run);
}

}  // namespace

const char* to_string(BackendRequest b) {
  switch (b) {
    case BackendRequest::automatic: return "auto";
    case BackendRequest::gpu: return "gpu";
    case BackendRequest::model: return "model";
  }
  return "auto";
}

BackendChoice choose_backend(BackendRequest request, std::optional<int> device, const GpuProbe& probe) {
  BackendChoice c;
  if (request == BackendRequest::model) {  // the model never needs a GPU, whatever --device says
    give_reason(c, "backend.asked-model");
    return c;
  }
  const int count = static_cast<int>(probe.devices.size());
  if (device && (*device < 0 || *device >= count)) {
    if (count == 0) {
      throw NoGpuError("--device " + std::to_string(*device) + ": this machine has no usable GPU (" +
                       probe.reason.en + ")");
    }
    throw UsageError("--device " + std::to_string(*device) + " is out of range: " + std::to_string(count) +
                     " GPU(s) visible (numbered after CUDA_VISIBLE_DEVICES); accepted: 0.." +
                     std::to_string(count - 1));
  }
  if (count == 0) {
    if (request == BackendRequest::gpu) {
      throw NoGpuError("--backend gpu: no usable GPU (" + probe.reason.en + ")");
    }
    give_reason(c, "backend.no-gpu", {}, &probe.reason);
    return c;
  }
  const DeviceInfo& d = probe.devices[static_cast<std::size_t>(device.value_or(0))];
  c.gpu = true;
  c.device = d;
  give_reason(c, "backend.gpu", {{"index", d.index}, {"name", d.name}, {"cc", d.cc_string()}});
  return c;
}

}  // namespace cudasync
