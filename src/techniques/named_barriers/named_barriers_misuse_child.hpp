#pragma once
// The misuse part runs in a child process: the parent starts this same binary in the lesson's
// child mode "misuse" (core/parts/child.hpp: `named-barriers --child misuse --child-out FILE
// --count C --arrive T --barrier-ids ID,X ...`), the child runs one misuse kernel and writes one
// line to FILE, and the parent waits for it with a host-side timeout. Whatever a bad count does
// to the hardware (wait, trap, hang), it happens to the child's CUDA context, never the parent's.
// This file is the part's protocol: the child's arguments and answer. Host-only code, no CUDA.
#include <string>
#include <vector>

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

// The lesson's arguments of the child that runs case `c` on barrier `id` (core adds the child
// mode, the answer file, device, seed and backend): "--count 48 --arrive 64 --barrier-ids 1,2".
// --barrier-ids takes two distinct ids; the child uses the first.
std::vector<std::string> misuse_child_args(const MisuseCase& c, int id);

// The one line a child writes: "ok count=48 arrive=64 arrive_ns=0,20004 leave_ns=20010,20011 rescue_ns="
// or "cuda_error <message>".
std::string format_observation(const MisuseObservation& o);
std::string format_cuda_error(const std::string& message);
// Parses the child's file into `out` (status ok or cuda_error); false when the text is neither.
bool parse_child_output(const std::string& text, MisuseOutcome& out);

// What the parent makes of a finished child of case `c`: its answer, a timeout (the parent
// killed it), or a crash (any other end, with the child's stderr).
MisuseOutcome misuse_outcome(const MisuseCase& c, const ChildResult& r);

}  // namespace cudasync::named_barriers
