#pragma once
// The misuse part runs in a child process: the parent starts this same binary with a hidden
// option (`named-barriers --misuse-child FILE`), the child runs one misuse kernel and writes one
// line to FILE, and the parent waits for it with a host-side timeout. Whatever a bad count does
// to the hardware (wait, trap, hang), it happens to the child's CUDA context, never the parent's.
// The process machinery is core/child_process.hpp; this file is the misuse part's protocol.
// Host-only code, no CUDA.
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "core/child_process.hpp"
#include "techniques/named_barriers/named_barriers.hpp"

namespace cudasync::named_barriers {

struct MisuseOutcome {
  enum class Status { ok, cuda_error, timeout, crashed };
  MisuseCase c;
  Status status = Status::crashed;
  std::string message;     // the CUDA error, the signal, or what the child printed on stderr
  MisuseObservation seen;  // when ok
  double seconds = 0.0;    // wall time of the child, CUDA start-up included
};
const char* to_string(MisuseOutcome::Status s);

// The one line a child writes: "ok count=48 arrive=64 arrive_ns=0,20004 leave_ns=20010,20011 rescue_ns="
// or "cuda_error <message>".
std::string format_observation(const MisuseObservation& o);
std::string format_cuda_error(const std::string& message);
// Parses the child's file into `out` (status ok or cuda_error); false when the text is neither.
bool parse_child_output(const std::string& text, MisuseOutcome& out);

// Warps released together, in the order they arrived (warp indices), from the observed times: a
// warp joins the group of the warp before it when it arrived before that warp left.
std::vector<std::vector<int>> observed_phases(const MisuseObservation& o);

class MisuseChild {
 public:
  // Starts `exe named-barriers --misuse-child FILE --count C --arrive T --barrier-ids ID,X
  // --backend gpu --device D -q`. Throws std::runtime_error if the process cannot be started.
  MisuseChild(const std::string& exe, const MisuseCase& c, int id, int device, std::chrono::milliseconds timeout);
  // Waits until the child exits or the timeout (from the start) passes; on timeout kills it
  // (SIGKILL) and reports Status::timeout. Call once.
  MisuseOutcome finish();

 private:
  MisuseCase c_;
  std::unique_ptr<ChildProcess> child_;
};

}  // namespace cudasync::named_barriers
