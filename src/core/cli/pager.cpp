#include "core/cli/pager.hpp"

#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include <spdlog/spdlog.h>

namespace cudasync::cli {

std::optional<std::string> pager_command(bool stdout_is_tty, bool no_pager, const char* cudasync_pager_env,
                                         const char* pager_env, const char* term_env) {
  if (!stdout_is_tty || no_pager) return std::nullopt;
  std::string cmd = "less -FRX";
  if (cudasync_pager_env) cmd = cudasync_pager_env;
  else if (pager_env) cmd = pager_env;
  else if (term_env && std::string(term_env) == "dumb") return std::nullopt;  // no less on a dumb terminal
  const auto first = cmd.find_first_not_of(" \t");
  if (first == std::string::npos || cmd.substr(first) == "cat") return std::nullopt;
  return cmd;
}

int terminal_height() {
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) return ws.ws_row;
  return 0;
}

namespace {

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // EPIPE: the reader quit early, as a person may
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::optional<std::string> pager_failure(int status) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::nullopt;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return std::string("could not be run");
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was ended by signal ") + strsignal(WTERMSIG(status));
  return std::string("did not finish");
}

void print_paged(const std::string& text, const std::optional<std::string>& pager) {
  const auto lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  const int height = terminal_height();
  if (!pager || height <= 0 || lines < height) {
    std::cout << text;
    return;
  }
  std::cout.flush();
  int fds[2];
  if (pipe(fds) != 0) {
    std::cout << text;
    return;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    std::cout << text;
    return;
  }
  if (pid == 0) {
    dup2(fds[0], STDIN_FILENO);
    close(fds[0]);
    close(fds[1]);
    setenv("LESS", "FRX", 0);
    setenv("LV", "-c", 0);
    execl("/bin/sh", "sh", "-c", pager->c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[0]);
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old);
  write_all(fds[1], text);
  close(fds[1]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGPIPE, &old, nullptr);
  // A pager that could not run (127), failed or was killed may have shown nothing: the text goes
  // to the terminal itself rather than being lost (shown twice at worst, never not at all).
  if (const auto failed = pager_failure(status)) {
    spdlog::warn("the pager '{}' {}: the text follows without it (--no-pager or CUDASYNC_PAGER=cat skip it)", *pager,
                 *failed);
    std::cout << text;
  }
}

}  // namespace cudasync::cli
