#pragma once
// Where a run's results go, and the proof that they got there. --json delivers exactly one valid
// document, or the run exits non-zero with a message on stderr:
//   - the document is rendered before anything is written (a rendering failure leaves no text
//     report and no half-written file behind);
//   - bytes that are not UTF-8 (from the command line) are replaced by U+FFFD, and stderr says so;
//   - every write and the close of the --json file and of stdout are checked (a full disk, a
//     closed stdout): a lost document is a usage error, exit 2, never a silent exit 0.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cli/deliver.hpp"
#include "core/errors.hpp"
#include "core/report/json_renderer.hpp"
#include "core/report/report.hpp"

namespace cudasync::cli {

// Standard streams a parent closed (`cudasync ... >&-`) are reopened before anything opens a
// file, so that the --json file never lands on descriptor 1: stdout on /dev/full (every write
// fails and is reported), stdin and stderr on /dev/null. Returns whether stdout was closed.
bool guard_standard_streams();

// The --json target argv asks for: "" (none), "-" (stdout) or a file. The last --json wins, as
// in CLI11's parse, and nothing after "--" counts. `empty_file` is set for a last "--json=".
struct JsonTarget {
  std::string target;
  bool empty_file = false;  // "--json=" with no file name: a usage error
};
JsonTarget json_target_from_argv(const std::vector<std::string>& args);

// A JSON document as text: strict UTF-8, or with every byte that is not UTF-8 replaced by U+FFFD
// and `replaced` set.
std::string dump_document(const nlohmann::ordered_json& doc, bool& replaced);

class Output {
 public:
  // Opens the --json file (throws UsageError when it cannot be opened for writing, or is a FIFO
  // that no process reads).
  Output(std::string json_target, bool color, bool stdout_closed, const report::RunMeta& meta);

  // The renderings beside the document (--html, --markdown, --csv) and --no-pager: opens their
  // files. Throws UsageError when two outputs ask for stdout or are one file (core/cli/deliver.hpp),
  // or a file cannot be opened; the Output can still deliver the error document.
  void add_exports(const OutputOptions& o);

  // The text report on stdout, through the pager on a terminal (unless another rendering goes to
  // stdout), the other renderings and the document.
  void report(const report::Report& r);
  // The message on stderr and, with --json, the error document.
  void error(const Error& e) { error(e.kind, e.what(), static_cast<int>(e.code)); }
  void error(const std::string& kind, const std::string& raw_message, int code);
  // Flushes and closes the --json file and flushes stdout. Returns the message of what failed.
  std::optional<std::string> finish();

 private:
  std::string document_text(const nlohmann::ordered_json& doc) const;  // dump_document, and says so on stderr
  void write_json(const std::string& text);
  std::string json_target_;
  bool color_;
  bool stdout_closed_;
  const report::RunMeta& meta_;
  std::unique_ptr<OutputFile> file_;
  OutputOptions out_opts_;
  std::unique_ptr<Exports> exports_;
  std::optional<std::string> failure_;
};

// Flushes stdout; the message of the failure when a write to it was lost, or when it was closed
// (whatever the run wrote to it is lost).
std::optional<std::string> stdout_failure(bool stdout_closed);

}  // namespace cudasync::cli
