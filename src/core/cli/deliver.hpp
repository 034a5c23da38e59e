#pragma once
// The report for a person and the other renderings a run may ask for, beside --json:
//   the text on stdout, through the pager on a terminal (core/cli/pager.hpp; --no-pager);
//   --html[=FILE]      one self-contained page (inline CSS and SVG pictures, no network);
//   --markdown[=FILE]  every table as a Markdown table (nvbench's --markdown);
//   --csv[=FILE]       every cell, fact, measurement and check as one CSV row (long format).
// Alone, each goes to stdout in place of the text; =FILE writes a file and the text stays. Like
// --json, FILE attaches with '=': in `--html lock` the word could be a file or the lesson.
//
// Every output file is opened once, and two outputs that are one file (by device and inode: a
// symlink, a hard link, ./x beside x, a file that is also stdout) are a usage error naming both:
// their bytes would interleave into one corrupt file. A FIFO that no process reads is refused
// (opened without waiting, ENXIO) rather than waited on for ever; one with a reader, as bash's
// --json=>(jq .), is written as a file is.
#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/report/json_renderer.hpp"
#include "core/report/report.hpp"

namespace cudasync::cli {

struct OutputOptions {
  bool no_pager = false;
  std::string html;      // "" none, "-" stdout, else a file
  std::string markdown;  // idem
  std::string csv;       // idem
};

void add_output_options(CLI::App& app, OutputOptions& o);

// What makes two open files one: device and inode. Only regular files and pipes (FIFOs) compare:
// two writers on one terminal or on /dev/null corrupt no file.
struct FileId {
  dev_t device = 0;
  ino_t inode = 0;
  bool comparable = false;
};
bool same_file(const FileId& a, const FileId& b);
// stdout's FileId (not comparable when it is a terminal, a device or closed).
FileId stdout_id();

// One output file of a run, opened once by its option ("--json", "--html"). Not truncated when
// opened: the run first checks that no two outputs are one file (a refused run destroys
// nothing), then truncate() empties it; discard() removes it again when this run created it.
class OutputFile {
 public:
  // Throws UsageError naming `option` and `path` when it cannot be opened, or when it is a FIFO
  // without a reader.
  OutputFile(std::string option, std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  const std::string& option() const { return option_; }
  const std::string& path() const { return path_; }
  const FileId& id() const { return id_; }
  // Empties a regular file (a FIFO or a device has nothing to empty).
  void truncate();
  // Writes all of `text` and closes the file; the reason (strerror) when a write or the close failed.
  std::optional<std::string> write_all(const std::string& text);
  // Closes the file, and removes it when this run created it (a refused run leaves nothing behind).
  void discard();
  bool is_open() const { return fd_ >= 0; }
  bool is_regular() const { return regular_; }

 private:
  std::string option_, path_;
  int fd_ = -1;
  bool created_ = false;
  bool regular_ = false;
  FileId id_;
};

// The usage error when two of `files`, or one of them and stdout (`stdout_user` names what goes
// there: "the text report", "--json"), are one file; nullopt when each is a file of its own.
std::optional<std::string> aliased_outputs(const std::vector<const OutputFile*>& files, const FileId& stdout_file,
                                           const std::string& stdout_user);

// The usage error when two renderings ask for stdout (--json and --html alone, say) or name one
// file (--html=run.out --csv=run.out).
std::optional<std::string> output_conflict(const OutputOptions& o, const std::string& json_target);

// The usage error for a last "--html=", "--markdown=" or "--csv=" that names no file (CLI11 would
// read it as the option alone, stdout). `args` is argv without the program; nothing after "--".
std::optional<std::string> empty_export_file(const std::vector<std::string>& args);

class Exports {
 public:
  // Opens the files (throws UsageError naming the option when one cannot be written).
  explicit Exports(const OutputOptions& o);
  // One of the renderings goes to stdout: no text report, no pager.
  bool on_stdout() const;
  // The option whose rendering goes to stdout ("--html"), or "".
  std::string stdout_option() const;
  // The files opened, for the check that no two are one.
  std::vector<const OutputFile*> files() const;
  // Empties every file (after the check passed).
  void truncate();
  // Closes every file, removing those this run created.
  void discard();
  // Every rendering, made before anything is written (a failure leaves no half file behind).
  std::vector<std::string> render(const report::Report& r, const report::RunMeta& meta) const;
  // Writes what render made; throws UsageError naming the option when a write fails.
  void write(const std::vector<std::string>& rendered);

 private:
  struct Target {
    std::string option;  // "--html"
    std::string path;    // "-" stdout
    std::unique_ptr<OutputFile> file;
  };
  std::vector<Target> targets_;
};

// The text report: rendered to the terminal's width, through the pager when stdout is a terminal,
// the text is taller than it and no --no-pager.
void print_text(const report::Report& r, bool color, const OutputOptions& o);

}  // namespace cudasync::cli
