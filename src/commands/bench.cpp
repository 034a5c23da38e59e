#include "commands/bench.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "commands/bench_results.hpp"
#include "core/report/text_format.hpp"
#include "core/backend.hpp"
#include "core/child_process.hpp"
#include "core/cli/option_checks.hpp"
#include "core/cli/usage_message.hpp"
#include "core/errors.hpp"
#include "core/log.hpp"
#include "core/nvidia_driver.hpp"
#include "core/report/json_renderer.hpp"
#include "core/words/words.hpp"

namespace cudasync::commands {

using report::join;

namespace {

struct BenchOptions {
  std::vector<std::string> lessons;  // --lesson; empty: every lesson
  std::string out;                   // --out DIR; empty: write nothing
  bool force = false;
  int timeout_s = 1800;
};

std::vector<std::string> all_lessons(const RunContext& ctx) {
  std::vector<std::string> out;
  for (const auto& c : ctx.commands)
    if (c.is_lesson) out.push_back(c.name);
  return out;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

const char* status_of(const ChildResult& r) {
  switch (r.status) {
    case ChildResult::Status::exited:
      switch (r.exit_code) {
        case 0: return "ok";
        case 1: return "checks failed";
        case 3: return "no GPU";
        case 77: return "waived";
        default: return "failed";
      }
    case ChildResult::Status::timeout: return "timeout";
    default: return "failed";
  }
}

// Runs `<lesson> --bench --json=FILE` with the same backend and device, and reads its rows.
void run_lesson(const std::string& lesson, const BackendChoice& choice, const RunContext& ctx, const BenchOptions& o,
                BenchRun& run) {
  const std::string json_path = make_temp_file("bench", "json");
  std::vector<std::string> args = {lesson, "--bench", "--json=" + json_path, "--backend", choice.gpu ? "gpu" : "model",
                                   "--seed", std::to_string(ctx.seed), "--color", "never", "-q"};
  if (choice.gpu) {
    args.emplace_back("--device");
    args.push_back(std::to_string(choice.device->index));
  }
  BenchLesson l;
  l.lesson = lesson;
  try {
    ChildProcess child(self_executable(), args, std::chrono::seconds(o.timeout_s), "bench");
    const ChildResult r = child.finish();
    l.exit_code = r.status == ChildResult::Status::exited ? r.exit_code : -1;
    l.status = status_of(r);
    l.seconds = r.seconds;
    if (l.status != "ok") l.detail = r.describe();
    const std::string text = read_all(json_path);
    if (!text.empty()) {
      const auto doc = nlohmann::ordered_json::parse(text, nullptr, false);
      if (!doc.is_discarded()) {
        for (auto& row : bench_rows(lesson, doc)) run.rows.push_back(std::move(row));
        if (run.device.is_null() && doc.contains("device")) run.device = doc["device"];
      }
    }
  } catch (const std::exception& e) {
    l.status = "failed";
    l.exit_code = -1;
    l.detail = e.what();
  }
  std::remove(json_path.c_str());
  run.lessons.push_back(std::move(l));
}

const char* kWritableOut = "accepted: a directory that can be written, with room for the results";

// Why a file could not be written to `fd` (errno), or 0: all of `text`, flushed to the disk (a full
// disk may say so only then) and closed.
int write_whole(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      return err;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 && errno != EINVAL) {
    const int err = errno;
    ::close(fd);
    return err;
  }
  return ::close(fd) == 0 ? 0 : errno;
}

// Creates, writes and removes a file in --out: an immutable folder, /proc/self or a full disk is
// refused before an hour of benchmarks rather than after it.
void require_writable(const std::string& out) {
  std::string probe = out + "/.cudasync-bench-probe-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  const int err = fd < 0 ? errno : write_whole(fd, "x");
  if (fd >= 0) ::unlink(probe.c_str());
  if (err != 0)
    throw UsageError("--out " + cli::shown_value(out) + ": cannot write a file in it (" + std::strerror(err) + "); " +
                     kWritableOut);
}

// Writes each (path, text) to a temporary beside it, then renames them all into place: a write
// that fails (a full disk) removes the temporaries and leaves an earlier run's files as they were.
void write_results(const std::string& out, const std::vector<std::pair<std::string, std::string>>& files) {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  std::vector<std::string> written;
  const auto remove_written = [&] {
    for (const auto& t : written) ::unlink(t.c_str());
  };
  for (const auto& [path, text] : files) {
    std::string tmp = path + ".XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    int err = fd < 0 ? errno : 0;
    if (fd >= 0) {
      written.push_back(tmp);
      ::fchmod(fd, 0666 & ~mask);  // as a plain new file, not mkstemp's 0600
      err = write_whole(fd, text);
    }
    if (err != 0) {
      remove_written();
      throw UsageError("--out " + cli::shown_value(out) + ": writing " + path + " failed (" + std::strerror(err) +
                       "); no result file was written; " + kWritableOut);
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i)
    if (std::rename(written[i].c_str(), files[i].first.c_str()) != 0) {
      const int err = errno;
      remove_written();
      throw UsageError("--out " + cli::shown_value(out) + ": cannot replace " + files[i].first + " (" +
                       std::strerror(err) + "); " + kWritableOut);
    }
}

report::Report run_bench(const BenchOptions& o, const RunContext& ctx) {
  std::vector<std::string> lessons;  // --lesson lock --lesson lock runs lock once
  for (const auto& l : o.lessons.empty() ? all_lessons(ctx) : o.lessons)
    if (std::find(lessons.begin(), lessons.end(), l) == lessons.end()) lessons.push_back(l);
  const GpuProbe& probe = ctx.gpus();
  const BackendChoice choice = choose_backend(ctx.backend_request, ctx.device_request, probe);

  BenchRun run;
  run.measured = choice.gpu;
  if (choice.gpu) {
    const DeviceInfo& d = *choice.device;
    run.gpu = d.name + " (cc " + d.cc_string() + ", " + std::to_string(d.sm_count) + " SMs)";
  } else {
    run.gpu = "none (reference model)";
  }
  const std::string release = driver_release();
  run.driver = probe.driver_version > 0 ? (release.empty() ? "" : release + ", ") + "CUDA " + version_string(probe.driver_version)
                                        : std::string("none");
  run.runtime = probe.runtime_version > 0 ? "CUDA " + version_string(probe.runtime_version) : std::string("none (model-only build)");
  run.date = utc_now();
  run.command = "cudasync bench" + (o.lessons.empty() ? std::string() : " --lesson " + join(o.lessons, ",")) +
                (o.out.empty() ? std::string() : " --out " + o.out);

  // Refuse before an hour of GPU time, not after it.
  std::vector<std::string> paths;
  if (!o.out.empty()) {
    const std::string stem = o.out + "/" + results_file_stem(choice.gpu ? choice.device->name : "");
    paths = {stem + ".md", stem + ".json"};
    std::error_code ec;
    for (const auto& p : paths) {
      const bool exists = std::filesystem::exists(p, ec);
      if (ec && ec != std::errc::no_such_file_or_directory)
        throw UsageError("--out " + cli::shown_value(o.out) + ": cannot use it (" + ec.message() +
                         "); accepted: a directory that can be written");
      if (exists && !o.force)
        throw UsageError("--out: " + p + " exists; accepted: --force to overwrite it, or another --out directory");
    }
    std::filesystem::create_directories(o.out, ec);
    if (ec)
      throw UsageError("--out " + cli::shown_value(o.out) + ": cannot create the directory (" + ec.message() +
                       "); accepted: a directory that can be written");
    require_writable(o.out);
  }
  if (!choice.gpu)
    log::info("bench: no GPU (" + choice.reason + "): the lessons run on the reference model and every figure needs a GPU");

  for (std::size_t i = 0; i < lessons.size(); ++i) {
    log::info("bench: " + lessons[i] + " --bench (" + std::to_string(i + 1) + " of " + std::to_string(lessons.size()) + ")");
    run_lesson(lessons[i], choice, ctx, o, run);
  }
  if (!paths.empty())
    write_results(o.out, {{paths[0], results_markdown(run)},
                          {paths[1], results_json(run).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"}});
  return bench_report(run, paths);
}

}  // namespace

cli::Attached attach_bench(CLI::App& sub) {
  auto o = std::make_shared<BenchOptions>();
  // The lessons added before this command: the commands with core's --part option. Known here,
  // they go into --help, --cli-spec and the completions; the validator below checks them anyway.
  std::vector<std::string> known;
  if (const CLI::App* app = sub.get_parent())
    for (const CLI::App* c : app->get_subcommands([](const CLI::App*) { return true; }))
      if (c != &sub && c->get_option_no_throw("--part") != nullptr) known.push_back(c->get_name());
  CLI::Option* lesson_option =
      sub.add_option("--lesson", o->lessons, words::core("help.bench.lesson"))->delimiter(',');
  if (!known.empty()) lesson_option->check(CLI::IsMember(known));
  sub.add_option("--out", o->out, words::core("help.bench.out"))
      ->check(cli::non_empty("a directory that can be written (created if missing)"));
  sub.add_flag("--force", o->force, words::core("help.bench.force"));
  sub.add_option("--timeout", o->timeout_s, words::core("help.bench.timeout"))
      ->check(CLI::Range(1, 86400));
  sub.footer(words::core("help.bench.footer"));
  cli::Validator validate = [o](const RunContext& ctx) {
    const auto lessons = all_lessons(ctx);
    for (const auto& l : o->lessons)
      if (std::find(lessons.begin(), lessons.end(), l) == lessons.end())
        throw UsageError("--lesson " + cli::shown_value(l) + ": no such lesson; accepted: " + join(lessons, ", "));
  };
  cli::Runner run = [o](const RunContext& ctx) { return run_bench(*o, ctx); };
  return {run, validate};
}

}  // namespace cudasync::commands
