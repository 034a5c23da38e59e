#include "core/cli/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

#include <spdlog/spdlog.h>

#include "core/cli/usage_message.hpp"

namespace cudasync::cli {

namespace {

bool fd_open(int fd) { return fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

void reopen(int fd, const char* path, int flags) {
  const int got = open(path, flags);
  if (got >= 0 && got != fd) {
    dup2(got, fd);
    close(got);
  }
}

bool argv_has_non_utf8(const std::vector<std::string>& argv) {
  return std::any_of(argv.begin(), argv.end(), [](const std::string& a) { return !is_utf8(a); });
}

}  // namespace

bool guard_standard_streams() {
  // In order: a closed 0 would otherwise take /dev/full meant for 1.
  if (!fd_open(0)) reopen(0, "/dev/null", O_RDONLY);
  const bool stdout_closed = !fd_open(1);
  if (stdout_closed) {
    reopen(1, "/dev/full", O_WRONLY);
    if (!fd_open(1)) reopen(1, "/dev/null", O_WRONLY);
  }
  if (!fd_open(2)) reopen(2, "/dev/null", O_WRONLY);
  return stdout_closed;
}

JsonTarget json_target_from_argv(const std::vector<std::string>& args) {
  JsonTarget t;
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "--json") t = {"-", false};
    else if (a.rfind("--json=", 0) == 0) t = {a.substr(7), a.size() == 7};
  }
  return t;
}

std::string dump_document(const nlohmann::ordered_json& doc, bool& replaced) {
  replaced = false;
  try {
    return doc.dump(2);
  } catch (const nlohmann::json::type_error&) {  // 316: a string that is not UTF-8
    replaced = true;
    return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

std::optional<std::string> stdout_failure(bool stdout_closed) {
  errno = 0;
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (stdout_closed) return std::string("cannot write to stdout: it is closed; give the run a stdout");
  if (flushed && !std::ferror(stdout) && !std::cout.fail()) return std::nullopt;
  return std::string("cannot write to stdout (") + (err ? std::strerror(err) : "write error") +
         "): the output was lost; give the run a stdout it can write to";
}

Output::Output(std::string json_target, bool color, bool stdout_closed, const report::RunMeta& meta)
    : json_target_(std::move(json_target)), color_(color), stdout_closed_(stdout_closed), meta_(meta) {
  if (json_target_.empty() || json_target_ == "-") return;
  file_ = std::make_unique<OutputFile>("--json", json_target_);
}

void Output::add_exports(const OutputOptions& o) {
  out_opts_ = o;
  if (const auto conflict = output_conflict(o, json_target_)) throw UsageError(*conflict);
  exports_ = std::make_unique<Exports>(o);
  std::vector<const OutputFile*> files = exports_->files();
  if (file_) files.insert(files.begin(), file_.get());
  const std::string on_stdout = json_target_ == "-"             ? std::string("the --json document")
                                : !exports_->stdout_option().empty() ? exports_->stdout_option() + "'s rendering"
                                                                     : std::string("the text report");
  if (const auto aliased = aliased_outputs(files, stdout_closed_ ? FileId{} : stdout_id(), on_stdout)) {
    exports_->discard();  // the --json file stays: it takes the error document
    exports_.reset();
    throw UsageError(*aliased);
  }
  // Each output is a file of its own: now they may be emptied, as opening them used to.
  if (file_) file_->truncate();
  exports_->truncate();
}

void Output::report(const report::Report& r) {
  // Every rendering first: if one cannot be made, nothing has been written yet.
  std::string doc;
  if (!json_target_.empty()) doc = document_text(report::document_json(r, meta_));
  const std::vector<std::string> exported = exports_ ? exports_->render(r, meta_) : std::vector<std::string>{};
  if (json_target_ != "-" && !(exports_ && exports_->on_stdout())) print_text(r, color_, out_opts_);
  if (exports_) exports_->write(exported);
  if (!json_target_.empty()) write_json(doc);
}

void Output::error(const std::string& kind, const std::string& raw_message, int code) {
  // A message may quote what the user typed: control characters and bytes that are not UTF-8
  // become \xHH, on stderr and in the document alike.
  const std::string message = message_text(raw_message);
  std::cerr << "cudasync: error: " << message << "\n";
  if (json_target_.empty()) return;
  write_json(document_text(report::error_document_json(kind, message, code, meta_)));
}

std::string Output::document_text(const nlohmann::ordered_json& doc) const {
  bool replaced = false;
  std::string text = dump_document(doc, replaced);
  if (replaced)
    spdlog::warn("{}: the JSON document shows each as U+FFFD",
                 argv_has_non_utf8(meta_.argv) ? "the command line holds bytes that are not UTF-8"
                                               : "the report holds bytes that are not UTF-8");
  return text;
}

void Output::write_json(const std::string& text) {
  if (!file_) {
    std::cout << text << '\n';
    return;
  }
  const bool regular = file_->is_regular();
  const auto failed = file_->write_all(text + "\n");
  if (!failed) return;
  failure_ = "--json=" + shown_value(json_target_) + ": writing the document failed (" + *failed +
             "); accepted: a writable path with room for it";
  if (regular) std::remove(json_target_.c_str());  // no half document
}

std::optional<std::string> Output::finish() {
  if (file_ && file_->is_open()) file_->discard();  // opened, never written: a run that ended before its report
  std::optional<std::string> out = stdout_failure(stdout_closed_);
  if (out && json_target_ == "-") out = "--json: " + *out;
  if (out && failure_) return *failure_ + "; and " + *out;
  return out ? out : failure_;
}

}  // namespace cudasync::cli
