#pragma once
// Markdown (a lesson's text) for a terminal, parsed by md4c (CommonMark with GitHub tables):
// headings set off (bold with colour; underlined with = and - without), paragraphs and list items
// wrapped to the width with hanging indents, `code` in colour (backquoted without), code blocks
// indented and never reflowed (a line too long breaks with a trailing " \"), tables laid out like
// the report's own (text_table.hpp: wrapped, folded when wider than the terminal), block quotes
// behind "| ". Every line fits `width` columns (CJK characters count two).
#include <cstddef>
#include <string>

namespace cudasync::report {

// md4c is loaded at run time (md4c_library.hpp); without it, plain_markdown_text and a warning.
std::string render_markdown_text(const std::string& markdown, std::size_t width, bool color);

// The Markdown as written, each line longer than `width` wrapped under its own indent.
std::string plain_markdown_text(const std::string& markdown, std::size_t width);

}  // namespace cudasync::report
