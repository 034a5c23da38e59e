#pragma once
namespace cudasync::cli {
// Columns of the terminal on stdout; else $COLUMNS; else 80.
int terminal_width();
// Columns of the terminal on descriptor `fd`; 0 when it is not a terminal (or narrower than 40).
int terminal_columns(int fd);
}  // namespace cudasync::cli
