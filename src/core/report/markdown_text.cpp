#include "core/report/markdown_text.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "core/report/md4c_library.hpp"
#include "core/report/ansi.hpp"
#include "core/report/text_table.hpp"
#include "core/report/text_width.hpp"

namespace cudasync::report {

namespace {

using ansi::kReset;
constexpr const char* kBoldStyle = ansi::kBold;
constexpr const char* kItalicStyle = ansi::kItalic;
constexpr const char* kCodeStyle = ansi::kCyan;
constexpr const char* kHeadingStyle = ansi::kBoldUnderline;  // h1, h2

// A soft line break (\x02 here) joins two lines of a paragraph: a space between words, nothing
// between two wide (CJK) characters, as a browser does: "封\n装" is "封装", not "封 装".
std::string join_soft_breaks(std::string s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\x02') {
      out += s[i];
      continue;
    }
    std::size_t b = out.size();
    while (b > 0 && (static_cast<unsigned char>(out[b - 1]) & 0xc0) == 0x80) --b;
    if (b > 0) --b;
    std::size_t e = i + 1;
    if (e < s.size()) ++e;
    while (e < s.size() && (static_cast<unsigned char>(s[e]) & 0xc0) == 0x80) ++e;
    const bool wide_before = display_width(std::string_view(out).substr(b)) == 2;
    const bool wide_after = display_width(std::string_view(s).substr(i + 1, e - i - 1)) == 2;
    if (!(wide_before && wide_after)) out += ' ';
  }
  return out;
}

// Escape sequences open at the end of a line are closed there and opened again on the next, so
// that a wrapped span never colours an indent, a table's padding or the pager's status line.
std::vector<std::string> balance_styles(std::vector<std::string> lines) {
  std::string open;
  for (auto& line : lines) {
    std::string now = open;
    for (std::size_t i = line.find("\x1b["); i != std::string::npos; i = line.find("\x1b[", i + 1)) {
      std::size_t j = i + 2;
      while (j < line.size() && !(line[j] >= 0x40 && line[j] <= 0x7e)) ++j;
      const std::string esc = line.substr(i, j + 1 - i);
      if (esc == kReset) now.clear();
      else now += esc;
    }
    line = open + line + (now.empty() ? "" : kReset);
    open = now;
  }
  return lines;
}

struct List {
  bool ordered = false;
  bool tight = true;
  unsigned next = 1;
};

class Renderer {
 public:
  Renderer(std::size_t width, bool color) : width_(std::max<std::size_t>(width, 20)), color_(color) {}

  std::string take() {
    flush();
    while (out_.size() >= 2 && out_.compare(out_.size() - 2, 2, "\n\n") == 0) out_.pop_back();
    return out_;
  }

  void enter_block(MD_BLOCKTYPE type, void* detail) {
    switch (type) {
      case MD_BLOCK_DOC: break;
      case MD_BLOCK_QUOTE:
        flush();
        blank();
        indent_.push_back("| ");
        break;
      case MD_BLOCK_UL:
      case MD_BLOCK_OL: {
        flush();
        List l;
        l.ordered = type == MD_BLOCK_OL;
        if (l.ordered) {
          const auto* d = static_cast<MD_BLOCK_OL_DETAIL*>(detail);
          l.tight = d->is_tight != 0;
          l.next = d->start;
        } else {
          l.tight = static_cast<MD_BLOCK_UL_DETAIL*>(detail)->is_tight != 0;
        }
        if (lists_.empty()) blank();
        lists_.push_back(l);
        break;
      }
      case MD_BLOCK_LI: {
        flush();
        List& l = lists_.back();
        if (!l.tight && !first_item_) blank();
        const std::string bullet = l.ordered ? std::to_string(l.next++) + ". " : "- ";
        indent_.push_back(std::string(bullet.size(), ' '));
        bullet_ = bullet;
        first_item_ = false;
        break;
      }
      case MD_BLOCK_HR:
        flush();
        blank();
        emit(std::string(std::min<std::size_t>(width_ - prefix_width(), 40), '-'));
        break;
      case MD_BLOCK_H:
        flush();
        blank();
        heading_ = static_cast<MD_BLOCK_H_DETAIL*>(detail)->level;
        break;
      case MD_BLOCK_CODE:
        flush();
        blank();
        code_ = true;
        break;
      case MD_BLOCK_HTML:
      case MD_BLOCK_P:
        flush();
        if (bullet_.empty()) blank();
        break;
      case MD_BLOCK_TABLE:
        flush();
        blank();
        table_ = TextTable{};
        table_.keys = 1;
        break;
      case MD_BLOCK_THEAD: head_ = true; break;
      case MD_BLOCK_TBODY: head_ = false; break;
      case MD_BLOCK_TR: row_.clear(); break;
      case MD_BLOCK_TH:
      case MD_BLOCK_TD: inline_.clear(); break;
    }
  }

  void leave_block(MD_BLOCKTYPE type, void*) {
    switch (type) {
      case MD_BLOCK_DOC:
      case MD_BLOCK_HR: break;
      case MD_BLOCK_QUOTE:
        flush();
        indent_.pop_back();
        break;
      case MD_BLOCK_UL:
      case MD_BLOCK_OL:
        flush();
        lists_.pop_back();
        first_item_ = true;
        if (lists_.empty()) blank();
        break;
      case MD_BLOCK_LI:
        flush();
        indent_.pop_back();
        bullet_.clear();
        break;
      case MD_BLOCK_H: {
        const unsigned level = heading_;
        heading_ = 0;
        const std::string text = take_inline();
        const std::size_t room = width_ - prefix_width() - (level >= 3 && !color_ ? 4 : 0);
        std::vector<std::string> lines = wrap_text(text, room);
        std::size_t w = 0;
        for (auto& l : lines) {
          w = std::max(w, display_width(l));
          if (color_) l = std::string(level <= 2 ? kHeadingStyle : kBoldStyle) + l + kReset;
          else if (level >= 3) l = std::string(level, '#') + " " + l;
        }
        emit_all(balance_styles(lines));
        if (!color_ && level <= 2) emit(std::string(w, level == 1 ? '=' : '-'));
        break;
      }
      case MD_BLOCK_CODE: {
        code_ = false;
        std::string code = take_inline();
        if (!code.empty() && code.back() == '\n') code.pop_back();
        const std::size_t room = width_ - prefix_width() - 4;
        std::size_t start = 0;
        while (start <= code.size()) {
          const std::size_t end = std::min(code.find('\n', start), code.size());
          for (const auto& l : code_lines(code.substr(start, end - start), room))
            emit("    " + (color_ && !l.empty() ? std::string(kCodeStyle) + l + kReset : l));
          start = end + 1;
        }
        break;
      }
      case MD_BLOCK_HTML:
        flush_raw();
        break;
      case MD_BLOCK_P: flush(); break;
      case MD_BLOCK_TABLE: {
        std::vector<std::string> lines = layout_table(table_, width_ - prefix_width(), 2);
        emit_all(lines);
        break;
      }
      case MD_BLOCK_THEAD:
      case MD_BLOCK_TBODY: break;
      case MD_BLOCK_TR:
        if (head_) {
          table_.headers = row_;
          table_.right.assign(row_.size(), false);
        } else {
          row_.resize(table_.headers.size());
          table_.rows.push_back(row_);
          table_.paint.emplace_back();
        }
        break;
      case MD_BLOCK_TH:
      case MD_BLOCK_TD: {
        std::string cell = take_inline();
        if (head_ && color_) cell = std::string(kBoldStyle) + cell + kReset;
        row_.push_back(cell);
        break;
      }
    }
  }

  void enter_span(MD_SPANTYPE type, void* detail) {
    switch (type) {
      case MD_SPAN_EM: push_style(kItalicStyle); break;
      case MD_SPAN_STRONG: push_style(kBoldStyle); break;
      case MD_SPAN_CODE:
        if (color_) push_style(kCodeStyle);
        else inline_ += '`';
        break;
      case MD_SPAN_A: {
        const auto* d = static_cast<MD_SPAN_A_DETAIL*>(detail);
        links_.emplace_back(d->href.text, d->href.size);
        link_text_start_.push_back(inline_.size());
        break;
      }
      case MD_SPAN_DEL: inline_ += '~'; break;
      default: break;
    }
  }

  void leave_span(MD_SPANTYPE type, void*) {
    switch (type) {
      case MD_SPAN_EM:
      case MD_SPAN_STRONG: pop_style(); break;
      case MD_SPAN_CODE:
        if (color_) pop_style();
        else inline_ += '`';
        break;
      case MD_SPAN_A: {
        const std::string href = links_.back();
        const std::string text = inline_.substr(link_text_start_.back());
        links_.pop_back();
        link_text_start_.pop_back();
        if (!href.empty() && href != text && href.front() != '#') inline_ += " (" + href + ")";
        break;
      }
      case MD_SPAN_DEL: inline_ += '~'; break;
      default: break;
    }
  }

  void text(MD_TEXTTYPE type, const MD_CHAR* data, MD_SIZE size) {
    const std::string s(data, size);
    switch (type) {
      case MD_TEXT_NULLCHAR: inline_ += "\xef\xbf\xbd"; break;
      case MD_TEXT_BR: inline_ += code_ ? "\n" : "\x01"; break;  // \x01: a hard break, kept by flush()
      case MD_TEXT_SOFTBR: inline_ += code_ ? "\n" : "\x02"; break;  // joined by take_inline()
      case MD_TEXT_ENTITY: inline_ += entity(s); break;
      default: inline_ += s; break;
    }
  }

 private:
  static std::string entity(const std::string& e) {
    if (e == "&amp;") return "&";
    if (e == "&lt;") return "<";
    if (e == "&gt;") return ">";
    if (e == "&quot;") return "\"";
    if (e == "&nbsp;") return " ";
    return e;
  }

  void push_style(const char* s) {
    if (!color_) return;
    styles_.emplace_back(s);
    inline_ += s;
  }
  void pop_style() {
    if (!color_ || styles_.empty()) return;
    styles_.pop_back();
    inline_ += kReset;
    for (const auto& s : styles_) inline_ += s;
  }

  std::string take_inline() {
    std::string s = join_soft_breaks(std::move(inline_));
    inline_.clear();
    return s;
  }

  // A code line too long for the page breaks at its last space that fits, marked by " \".
  static std::vector<std::string> code_lines(const std::string& line, std::size_t room) {
    std::vector<std::string> out;
    room = std::max<std::size_t>(room, 12);
    std::string rest = line;
    std::string lead;
    while (display_width(lead + rest) > room) {
      const std::size_t avail = room - 2 - display_width(lead);
      // The byte offset of `avail` columns (code is mostly ASCII; count columns to stay exact).
      std::size_t cut = 0, cols = 0;
      while (cut < rest.size()) {
        std::size_t len = 1;
        const auto c = static_cast<unsigned char>(rest[cut]);
        if (c >= 0xf0) len = 4;
        else if (c >= 0xe0) len = 3;
        else if (c >= 0xc0) len = 2;
        const std::size_t w = display_width(rest.substr(cut, len));
        if (cols + w > avail) break;
        cols += w;
        cut += len;
      }
      const std::size_t space = rest.rfind(' ', cut);
      if (space != std::string::npos && space > rest.find_first_not_of(' ') && space > cut / 2) cut = space;
      out.push_back(lead + trim_right(rest.substr(0, cut)) + " \\");
      rest = rest.substr(cut);
      rest.erase(0, rest.find_first_not_of(' ') == std::string::npos ? rest.size() : rest.find_first_not_of(' '));
      lead = "  ";
      if (rest.empty()) break;
    }
    if (!rest.empty() || out.empty()) out.push_back(lead + rest);
    return out;
  }

  std::size_t prefix_width() const {
    std::size_t w = 0;
    for (const auto& p : indent_) w += display_width(p);
    return w;
  }

  std::string prefix() {
    std::string p;
    for (std::size_t i = 0; i < indent_.size(); ++i)
      p += (i + 1 == indent_.size() && !bullet_.empty() && indent_[i].find('|') == std::string::npos) ? bullet_
                                                                                                      : indent_[i];
    if (!bullet_.empty()) bullet_ = "";  // the bullet goes on the item's first line only
    return p;
  }

  void emit(const std::string& line) {
    const std::string p = prefix();
    out_ += trim_right(p + line) + "\n";
  }
  void emit_all(const std::vector<std::string>& lines) {
    for (const auto& l : lines) emit(l);
  }

  // A blank line before a block, unless the output already ends with one (or is empty).
  void blank() {
    if (out_.empty() || (out_.size() >= 2 && out_.compare(out_.size() - 2, 2, "\n\n") == 0)) return;
    std::string p;
    for (const auto& i : indent_)
      if (i.find('|') != std::string::npos) p += i;
    out_ += trim_right(p) + "\n";
  }

  // The paragraph (or a tight item's text) gathered so far, wrapped under the current indent.
  void flush() {
    if (inline_.find_first_not_of(" \x01\x02") == std::string::npos) {
      inline_.clear();
      return;
    }
    const std::size_t room = width_ > prefix_width() + 8 ? width_ - prefix_width() : 8;
    std::vector<std::string> lines;
    std::size_t start = 0;
    const std::string text = take_inline();
    while (start <= text.size()) {
      const std::size_t end = std::min(text.find('\x01', start), text.size());
      for (auto& l : wrap_text(text.substr(start, end - start), room)) lines.push_back(std::move(l));
      start = end + 1;
    }
    emit_all(balance_styles(lines));
  }

  void flush_raw() {
    const std::string text = take_inline();
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      for (const auto& l : wrap_text(text.substr(start, end - start), width_ - prefix_width())) emit(l);
      start = end + 1;
    }
  }

  std::size_t width_;
  bool color_;
  std::string out_;
  std::string inline_;
  std::vector<std::string> indent_;
  std::string bullet_;
  std::vector<List> lists_;
  bool first_item_ = true;
  unsigned heading_ = 0;
  bool code_ = false;
  TextTable table_;
  std::vector<std::string> row_;
  bool head_ = false;
  std::vector<std::string> styles_;
  std::vector<std::string> links_;
  std::vector<std::size_t> link_text_start_;
};

// md4c's callbacks, each handing its event to the Renderer's member of the same name.
template <auto Member, typename Type>
int on_event(Type type, void* detail, void* user) {
  (static_cast<Renderer*>(user)->*Member)(type, detail);
  return 0;
}
int on_text(MD_TEXTTYPE t, const MD_CHAR* text, MD_SIZE size, void* u) {
  static_cast<Renderer*>(u)->text(t, text, size);
  return 0;
}

}  // namespace

std::string plain_markdown_text(const std::string& markdown, std::size_t width) {
  std::string out;
  std::istringstream in(markdown);
  for (std::string line; std::getline(in, line);) {
    if (display_width(line) <= width) {
      out += trim_right(line) + "\n";
      continue;
    }
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    const std::size_t hang = indent < width / 2 ? indent : 0;
    for (const auto& piece : wrap_text(line.substr(indent), width - hang)) out += std::string(hang, ' ') + piece + "\n";
  }
  return out;
}

std::string render_markdown_text(const std::string& markdown, std::size_t width, bool color) {
  const MdParse parse = md4c_parse();
  if (!parse) {
    spdlog::warn("{}", md4c_missing("libmd4c.so.0", "libmd4c0"));
    return plain_markdown_text(markdown, width);
  }
  Renderer r(width, color);
  MD_PARSER parser{};
  parser.abi_version = 0;
  parser.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_NOHTML;
  parser.enter_block = on_event<&Renderer::enter_block, MD_BLOCKTYPE>;
  parser.leave_block = on_event<&Renderer::leave_block, MD_BLOCKTYPE>;
  parser.enter_span = on_event<&Renderer::enter_span, MD_SPANTYPE>;
  parser.leave_span = on_event<&Renderer::leave_span, MD_SPANTYPE>;
  parser.text = on_text;
  if (parse(markdown.data(), static_cast<MD_SIZE>(markdown.size()), &parser, &r) != 0)
    return plain_markdown_text(markdown, width);
  return r.take();
}

}  // namespace cudasync::report
