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

std::string render_markdown_text(const std::string& markdown, std::size_t width, bool color);

}  // namespace cudasync::report
