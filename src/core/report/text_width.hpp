#pragma once
// Columns on a terminal, for every text renderer (reports, Markdown, help): the display width of
// UTF-8 text (East Asian wide characters take two columns, combining marks and ANSI escape
// sequences none), padding to a width, and word wrapping that may also break between CJK
// characters (Chinese has no spaces) but never before a closing mark such as "，" or ")".
//
//   display_width("lane 5") == 6;  display_width("线程") == 4
//   wrap_text("a fence orders the calling thread's accesses", 20)
//     == {"a fence orders the", "calling thread's", "accesses"}
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cudasync::report {

std::size_t display_width(std::string_view s);

// s and spaces up to `width` columns (s unchanged when it is as wide or wider).
std::string pad_right(const std::string& s, std::size_t width);
std::string pad_left(const std::string& s, std::size_t width);

// Lines of at most `width` columns (at least 1). Runs of white space become one space; a word
// wider than the line is broken between characters. ANSI escapes stay with the text they precede.
std::vector<std::string> wrap_text(std::string_view text, std::size_t width);

// The widest piece wrap_text never breaks (a word, or a CJK character with its punctuation).
std::size_t longest_piece(std::string_view text);

// Whitespace at the end of a line removed.
std::string trim_right(std::string s);

}  // namespace cudasync::report
