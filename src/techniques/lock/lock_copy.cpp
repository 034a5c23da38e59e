#include "techniques/lock/lock_copy.hpp"

#include <algorithm>
#include <sstream>

namespace cudasync::lock {

namespace {

std::string clean(std::string s) {
  std::replace(s.begin(), s.end(), '\t', ' ');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

}  // namespace

std::string format_copy_observation(const CopyObservation& o) {
  std::string s;
  for (const auto& st : o.steps) s += "step\t" + clean(st.what) + "\t" + clean(st.error) + "\t" + clean(st.detail) + "\n";
  s += "destructor_calls " + std::to_string(o.destructor_calls) + "\n";
  s += "frees_ok " + std::to_string(o.frees_ok) + "\n";
  s += "frees_failed " + std::to_string(o.frees_failed) + "\n";
  s += "count1 " + std::to_string(o.count1) + "\n";
  s += "count2 " + std::to_string(o.count2) + "\n";
  s += "expected " + std::to_string(o.expected) + "\n";
  s += "reused " + std::to_string(o.reused ? 1 : 0) + "\n";
  s += "second_timed_out " + std::to_string(o.second_timed_out ? 1 : 0) + "\n";
  s += "end\n";
  return s;
}

std::string format_copy_error(const std::string& message) { return "cuda_error " + clean(message) + "\n"; }

bool parse_copy_output(const std::string& text, CopyOutcome& out) {
  if (text.rfind("cuda_error ", 0) == 0) {
    out.status = CopyOutcome::Status::cuda_error;
    out.message = text.substr(11, text.find('\n') == std::string::npos ? std::string::npos : text.find('\n') - 11);
    return true;
  }
  CopyObservation o;
  std::istringstream in(text);
  std::string line;
  bool ended = false;
  int have = 0;
  while (std::getline(in, line)) {
    if (line == "end") {
      ended = true;
      break;
    }
    if (line.rfind("step\t", 0) == 0) {
      std::vector<std::string> f;
      std::istringstream fields(line);
      for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
      if (f.size() < 3 || f.size() > 4) return false;
      o.steps.push_back({f[1], f[2], f.size() == 4 ? f[3] : ""});
      continue;
    }
    std::istringstream kv(line);
    std::string key;
    long long v = 0;
    if (!(kv >> key >> v)) return false;
    std::string rest;
    if (kv >> rest) return false;
    if (key == "destructor_calls") o.destructor_calls = static_cast<int>(v);
    else if (key == "frees_ok") o.frees_ok = static_cast<int>(v);
    else if (key == "frees_failed") o.frees_failed = static_cast<int>(v);
    else if (key == "count1") o.count1 = v;
    else if (key == "count2") o.count2 = v;
    else if (key == "expected") o.expected = v;
    else if (key == "reused") o.reused = v != 0;
    else if (key == "second_timed_out") o.second_timed_out = v != 0;
    else return false;
    ++have;
  }
  if (!ended || have != 8 || o.steps.empty()) return false;
  out.status = CopyOutcome::Status::ok;
  out.seen = std::move(o);
  return true;
}

CopyOutcome copy_outcome(const ChildResult& r) {
  CopyOutcome out;
  out.seconds = r.seconds;
  if (r.status == ChildResult::Status::exited || r.status == ChildResult::Status::signaled)
    if (parse_copy_output(r.output, out)) return out;
  out.status = CopyOutcome::Status::no_answer;
  out.message = r.describe();
  return out;
}

}  // namespace cudasync::lock
