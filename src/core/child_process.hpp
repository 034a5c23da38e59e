#pragma once
// A part that may fault or hang the GPU runs in a child process: this same binary, started with a
// hidden option, does the dangerous thing and writes one answer into a file; the parent waits for
// it with a host-side timeout and kills it (SIGKILL) if it does not answer. Whatever happens to the
// child's CUDA context (a trap, an illegal address, a kernel that never ends), the parent's context
// is untouched. Used by named-barriers (bad bar.sync counts) and lock (a freed mutex).
// Host-only code: POSIX spawn and wait, no CUDA.
//
//   ChildProcess child(self_executable(), {"lock", "--copy-child", ChildProcess::kOutToken}, 8000ms, "lock");
//   ... the parent does other work meanwhile ...
//   const ChildResult r = child.finish();   // r.output holds what the child wrote to its file
#include <chrono>
#include <string>
#include <vector>

#include <sys/types.h>

namespace cudasync {

struct ChildResult {
  enum class Status {
    exited,    // the child exited by itself (exit_code says how)
    signaled,  // the child was killed by a signal it did not ask for (signal says which)
    timeout,   // no answer in time: the parent killed it
    lost,      // waitpid failed: nothing is known about the child
  };
  Status status = Status::lost;
  int exit_code = -1;
  int signal = 0;
  std::string output;  // the file the child wrote (the token kOutToken in its arguments)
  std::string err;     // its stderr
  double seconds = 0.0;  // wall time from the start to the exit, CUDA start-up included
  std::string message;   // for timeout and lost: what happened, in words

  // "exit 3", "killed by signal Segmentation fault", "no answer after 300 ms: the child was killed",
  // with the child's stderr appended (": cudasync: error: ...") when there is any.
  std::string describe() const;
};
const char* to_string(ChildResult::Status s);

class ChildProcess {
 public:
  // In `args`, this token is replaced by the path of a fresh temporary file for the child's answer.
  static constexpr const char* kOutToken = "{out}";

  // Starts `exe args...` with stdin and stdout on /dev/null and stderr into a temporary file. The
  // timeout counts from now. `tag` names the temporary files (/tmp/cudasync_<tag>_out_XXXXXX).
  // Throws std::runtime_error if the process cannot be started.
  // `env`: "NAME=value" entries that replace or add to this process's environment for the child.
  ChildProcess(const std::string& exe, std::vector<std::string> args, std::chrono::milliseconds timeout,
               const std::string& tag, const std::vector<std::string>& env = {});
  ~ChildProcess();  // kills a child that finish() never waited for, and removes the files
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Waits until the child exits or the timeout passes (then SIGKILL, Status::timeout). Call once.
  ChildResult finish();

 private:
  pid_t pid_ = -1;
  std::string out_path_, err_path_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::milliseconds timeout_;
};

// This process's executable (/proc/self/exe): the binary a parent starts as its own child.
std::string self_executable();

// A fresh, empty temporary file, $TMPDIR/cudasync_<tag>_<what>_XXXXXX (or /tmp), for a child's
// answer when the child names the file itself (`--json=FILE`). Throws std::runtime_error.
std::string make_temp_file(const std::string& tag, const char* what);

// The whole file at `path`, bytes as they are; empty when it cannot be read (a child that wrote nothing).
std::string read_all(const std::string& path);

}  // namespace cudasync
