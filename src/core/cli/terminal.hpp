#pragma once
namespace cudasync::cli {
// Columns of the terminal on stdout; else $COLUMNS; else 80.
int terminal_width();
}  // namespace cudasync::cli
