#include "techniques/named_barriers/named_barriers_misuse_child.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "core/number_list.hpp"

namespace cudasync::named_barriers {

const char* to_string(MisuseOutcome::Status s) {
  switch (s) {
    case MisuseOutcome::Status::ok: return "ok";
    case MisuseOutcome::Status::cuda_error: return "cuda_error";
    case MisuseOutcome::Status::timeout: return "timeout";
    case MisuseOutcome::Status::crashed: return "crashed";
  }
  return "crashed";
}

std::string format_observation(const MisuseObservation& o) {
  return "ok count=" + std::to_string(o.c.count) + " arrive=" + std::to_string(o.c.arrive_threads) +
         " arrive_ns=" + join_numbers(o.arrive_ns) + " leave_ns=" + join_numbers(o.leave_ns) +
         " rescue_ns=" + join_numbers(o.rescue_ns) + "\n";
}

std::string format_cuda_error(const std::string& message) {
  std::string m = message;
  std::replace(m.begin(), m.end(), '\n', ' ');
  return "cuda_error " + m + "\n";
}

bool parse_child_output(const std::string& text, MisuseOutcome& out) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.rfind("cuda_error ", 0) == 0) {
    out.status = MisuseOutcome::Status::cuda_error;
    out.message = line.substr(11);
    return true;
  }
  std::istringstream in(line);
  std::string word;
  if (!(in >> word) || word != "ok") return false;
  MisuseObservation o;
  bool have[5] = {false, false, false, false, false};
  while (in >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) return false;
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    std::vector<long long> nums;
    if (!split_numbers(value, nums)) return false;
    if (key == "count" && nums.size() == 1) o.c.count = static_cast<int>(nums[0]), have[0] = true;
    else if (key == "arrive" && nums.size() == 1) o.c.arrive_threads = static_cast<int>(nums[0]), have[1] = true;
    else if (key == "arrive_ns") o.arrive_ns = nums, have[2] = true;
    else if (key == "leave_ns") o.leave_ns = nums, have[3] = true;
    else if (key == "rescue_ns") o.rescue_ns = nums, have[4] = true;
    else return false;
  }
  if (!std::all_of(std::begin(have), std::end(have), [](bool b) { return b; })) return false;
  const auto warps = static_cast<std::size_t>(o.c.waiting_warps());
  if (o.arrive_ns.size() != warps || o.leave_ns.size() != warps) return false;
  out.status = MisuseOutcome::Status::ok;
  out.seen = o;
  return true;
}

std::vector<std::string> misuse_child_args(const MisuseCase& c, int id) {
  const int other = id == kBarrierCount - 1 ? id - 1 : id + 1;
  return {"--count", std::to_string(c.count), "--arrive", std::to_string(c.arrive_threads),
          "--barrier-ids", std::to_string(id) + "," + std::to_string(other)};
}

MisuseOutcome misuse_outcome(const MisuseCase& c, const ChildResult& r) {
  MisuseOutcome out;
  out.c = c;
  out.seconds = r.seconds;
  if (r.status == ChildResult::Status::timeout) {
    out.status = MisuseOutcome::Status::timeout;
    out.message = r.message;
    return out;
  }
  if (r.status != ChildResult::Status::lost && parse_child_output(r.output, out)) return out;
  out.status = MisuseOutcome::Status::crashed;
  out.message = r.describe();
  return out;
}

}  // namespace cudasync::named_barriers
