#include "core/cli/deliver.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>

#include "core/cli/pager.hpp"
#include "core/cli/terminal.hpp"
#include "core/cli/usage_message.hpp"
#include "core/errors.hpp"
#include "core/report/html_renderer.hpp"
#include "core/report/table_export.hpp"
#include "core/report/text_renderer.hpp"
#include "core/words/words.hpp"

namespace cudasync::cli {

void add_output_options(CLI::App& app, OutputOptions& o) {
  app.add_flag("--no-pager", o.no_pager, words::core("option.no-pager"));
  app.add_flag("--html{-}", o.html, words::core("option.html"));
  app.add_flag("--markdown{-}", o.markdown, words::core("option.markdown"));
  app.add_flag("--csv{-}", o.csv, words::core("option.csv"));
}

std::optional<std::string> output_conflict(const OutputOptions& o, const std::string& json_target) {
  const std::vector<std::pair<std::string, std::string>> targets{
      {"--json", json_target}, {"--html", o.html}, {"--markdown", o.markdown}, {"--csv", o.csv}};
  for (std::size_t i = 0; i < targets.size(); ++i)
    for (std::size_t j = i + 1; j < targets.size(); ++j) {
      const auto& [a, path] = targets[i];
      const auto& b = targets[j].first;
      if (path.empty() || path != targets[j].second) continue;
      if (path == "-")
        return a + " and " + b + " both ask for stdout; accepted: one of them alone, the other with =FILE (" + b +
               "=FILE)";
      return a + "=" + shown_value(path) + " and " + b + "=" + shown_value(path) +
             " name one file; accepted: a file of its own for each";
    }
  return std::nullopt;
}

std::optional<std::string> empty_export_file(const std::vector<std::string>& args) {
  std::map<std::string, bool> empty;  // option -> its last occurrence was "OPTION="
  for (const std::string& a : args) {
    if (a == "--") break;
    for (const char* option : {"--html", "--markdown", "--csv"}) {
      const std::string name(option);
      if (a == name || a.rfind(name + "=", 0) == 0) empty[name] = a.size() == name.size() + 1;
    }
  }
  for (const auto& [option, is_empty] : empty)
    if (is_empty)
      return option + "= names no file; accepted: " + option + "=FILE to write to FILE, or " + option +
             " alone for stdout";
  return std::nullopt;
}

namespace {

FileId id_of(const struct stat& st) {
  return {st.st_dev, st.st_ino, S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)};
}

constexpr int kOpenFlags = O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;

// Opens `path` for writing without truncating it and without waiting on a FIFO; `created` says
// whether this call made the file. -1 with errno set when it cannot.
int open_output(const std::string& path, bool& created) {
  created = false;
  const int fd = ::open(path.c_str(), kOpenFlags | O_CREAT | O_EXCL, 0666);
  if (fd >= 0) {
    created = true;
    return fd;
  }
  if (errno != EEXIST) return -1;
  const int existing = ::open(path.c_str(), kOpenFlags);
  // A dangling symlink exists but cannot be opened: create its target, as a plain open would.
  if (existing < 0 && errno == ENOENT) return ::open(path.c_str(), kOpenFlags | O_CREAT, 0666);
  return existing;
}

std::string accepted_for(const std::string& option) {
  return "accepted: a writable path, or " + option + " alone for stdout";
}

}  // namespace

bool same_file(const FileId& a, const FileId& b) {
  return a.comparable && b.comparable && a.device == b.device && a.inode == b.inode;
}

FileId stdout_id() {
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) != 0) return {};
  return id_of(st);
}

OutputFile::OutputFile(std::string option, std::string path) : option_(std::move(option)), path_(std::move(path)) {
  const std::string named = option_ + "=" + shown_value(path_);
  fd_ = open_output(path_, created_);
  if (fd_ < 0 && errno == ENXIO)
    throw UsageError(named + ": a FIFO that no process is reading, so the run would wait for ever; accepted: a "
                     "FIFO a reader has open (bash's " + option_ + "=>(COMMAND)), a regular file, or " + option_ +
                     " alone for stdout");
  if (fd_ < 0)
    throw UsageError(named + ": cannot open the file for writing (" + std::strerror(errno) + "); " +
                     accepted_for(option_));
  struct stat st {};
  if (::fstat(fd_, &st) == 0) {
    id_ = id_of(st);
    regular_ = S_ISREG(st.st_mode);
  }
  // Opened without waiting; written with waiting, as a reader takes its time.
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputFile::truncate() {
  if (fd_ >= 0 && regular_ && ::ftruncate(fd_, 0) != 0) {
    // Left as it is: the write that follows reports a file that cannot be written.
  }
}

std::optional<std::string> OutputFile::write_all(const std::string& text) {
  if (fd_ < 0) return std::string(std::strerror(EBADF));
  truncate();
  std::size_t done = 0;
  int err = 0;
  while (done < text.size() && err == 0) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) err = n < 0 ? errno : EIO;
    else done += static_cast<std::size_t>(n);
  }
  if (::close(fd_) != 0 && err == 0) err = errno;
  fd_ = -1;
  if (err == 0) return std::nullopt;
  return std::string(std::strerror(err));
}

void OutputFile::discard() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  if (created_) ::unlink(path_.c_str());
}

std::optional<std::string> aliased_outputs(const std::vector<const OutputFile*>& files, const FileId& stdout_file,
                                           const std::string& stdout_user) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    const OutputFile& a = *files[i];
    const std::string named = a.option() + "=" + shown_value(a.path());
    for (std::size_t j = i + 1; j < files.size(); ++j) {
      const OutputFile& b = *files[j];
      if (same_file(a.id(), b.id()))
        return named + " and " + b.option() + "=" + shown_value(b.path()) +
               " are one file (a link, or one path written two ways), and two renderings would corrupt it; "
               "accepted: a file of its own for each";
    }
    if (same_file(a.id(), stdout_file))
      return named + " is the file stdout goes to, where " + stdout_user +
             " is written, and the two would corrupt it; accepted: another file for " + a.option() +
             ", or stdout sent elsewhere";
  }
  return std::nullopt;
}

Exports::Exports(const OutputOptions& o) {
  for (const auto& [option, path] : {std::pair<std::string, std::string>{"--html", o.html},
                                     {"--markdown", o.markdown},
                                     {"--csv", o.csv}}) {
    if (path.empty()) continue;
    Target t{option, path, nullptr};
    try {
      if (path != "-") t.file = std::make_unique<OutputFile>(option, path);
    } catch (const UsageError&) {
      discard();  // the files opened before this one
      throw;
    }
    targets_.push_back(std::move(t));
  }
}

bool Exports::on_stdout() const { return !stdout_option().empty(); }

std::string Exports::stdout_option() const {
  for (const auto& t : targets_)
    if (t.path == "-") return t.option;
  return "";
}

std::vector<const OutputFile*> Exports::files() const {
  std::vector<const OutputFile*> out;
  for (const auto& t : targets_)
    if (t.file) out.push_back(t.file.get());
  return out;
}

void Exports::truncate() {
  for (auto& t : targets_)
    if (t.file) t.file->truncate();
}

void Exports::discard() {
  for (auto& t : targets_)
    if (t.file) t.file->discard();
}

std::vector<std::string> Exports::render(const report::Report& r, const report::RunMeta& meta) const {
  std::vector<std::string> out;
  for (const auto& t : targets_) {
    std::ostringstream text;
    if (t.option == "--html") report::render_html(r, meta, text);
    else if (t.option == "--markdown") report::render_markdown(r, text);
    else report::render_csv(r, text);
    out.push_back(text.str());
  }
  return out;
}

void Exports::write(const std::vector<std::string>& rendered) {
  for (std::size_t i = 0; i < targets_.size() && i < rendered.size(); ++i) {
    auto& t = targets_[i];
    if (!t.file) {  // stdout: its failures are found when the run finishes (core/cli/output.hpp)
      std::cout << rendered[i];
      continue;
    }
    if (const auto failed = t.file->write_all(rendered[i]))
      throw UsageError(t.option + "=" + shown_value(t.path) + ": writing failed (" + *failed +
                       "); accepted: a writable path with room for it");
  }
}

void print_text(const report::Report& r, bool color, const OutputOptions& o) {
  report::TextStyle style;
  style.color = color;
  style.width = terminal_width();
  std::ostringstream text;
  report::render_text(r, style, text);
  print_paged(text.str(), pager_command(isatty(STDOUT_FILENO) != 0, o.no_pager, std::getenv("CUDASYNC_PAGER"),
                                        std::getenv("PAGER"), std::getenv("TERM")));
}

}  // namespace cudasync::cli
