#pragma once
// A pager as git uses one: text for a person that is taller than the terminal goes through
// $CUDASYNC_PAGER, else $PAGER, else `less -FRX` (F: quit when it fits, R: keep the colours,
// X: leave the text on the screen). LESS=FRX and LV=-c are set for it when unset, as git does.
// Never when stdout is not a terminal, with --no-pager, or when the pager is "" or "cat".
#include <optional>
#include <string>

namespace cudasync::cli {

// The pager command to run, or nullopt for none. Pure: the caller passes what it knows.
std::optional<std::string> pager_command(bool stdout_is_tty, bool no_pager, const char* cudasync_pager_env,
                                         const char* pager_env, const char* term_env);

// Lines of the terminal on stdout; 0 when stdout is not a terminal.
int terminal_height();

// Writes `text` to stdout, through the pager when `pager` is set and the text has more lines than
// the terminal. A pager that cannot start (exit 127), exits non-zero or is killed leaves the text
// to stdout, with a warning: output is never lost to a pager (PAGER=false).
void print_paged(const std::string& text, const std::optional<std::string>& pager);

// Why a pager that ended with wait status `status` may not have shown the text ("exited with
// status 1"), or nullopt when it exited 0.
std::optional<std::string> pager_failure(int status);

}  // namespace cudasync::cli
