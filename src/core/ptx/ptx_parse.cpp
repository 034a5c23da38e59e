#include "core/ptx/ptx_parse.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <tuple>

namespace cudasync::ptx {

namespace {

[[noreturn]] void malformed(int line, const std::string& what) {
  throw Error("malformed", line, "line " + std::to_string(line) + ": " + what);
}

std::string trim_ptx(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' || c == '%';
}

bool is_identifier(const std::string& s) {
  if (s.empty()) return false;
  if (std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), ident_char);
}

// Whitespace-separated words of a directive line (commas kept in their words).
std::vector<std::string> words_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

// Splits at commas that are not inside [] or {}.
std::vector<std::string> split_top(const std::string& s, int line) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (depth < 0) malformed(line, "unbalanced brackets in '" + s + "'");
    if (c == ',' && depth == 0) {
      out.push_back(trim_ptx(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) malformed(line, "unbalanced brackets in '" + s + "'");
  if (!trim_ptx(cur).empty() || !out.empty()) out.push_back(trim_ptx(cur));
  return out;
}

bool parse_int_literal(std::string s, std::int64_t& v) {
  if (s.empty()) return false;
  bool neg = false;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    s = s.substr(1);
  }
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.pop_back();
  if (s.empty()) return false;
  int base = 10;
  std::size_t from = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    from = 2;
  } else if (s.size() > 1 && s[0] == '0' && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '7'; })) {
    base = 8;
    from = 1;
  }
  std::uint64_t acc = 0;
  for (std::size_t i = from; i < s.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (c >= 'a' && c <= 'f') d = 10 + (c - 'a');
    if (d < 0 || d >= base) return false;
    acc = acc * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
  }
  v = neg ? -static_cast<std::int64_t>(acc) : static_cast<std::int64_t>(acc);
  return true;
}

Operand parse_operand(const std::string& raw, int line) {
  const std::string s = trim_ptx(raw);
  Operand o;
  if (s.empty()) malformed(line, "an empty operand");
  if (s.front() == '[') {
    if (s.back() != ']') malformed(line, "an address without ']': '" + s + "'");
    const std::string in = trim_ptx(s.substr(1, s.size() - 2));
    o.kind = Operand::Kind::address;
    if (in.find(',') != std::string::npos) {  // a texture or surface operand: [tex, {x}] (kept whole)
      o.name = in;
      o.name2 = "composite";
      return o;
    }
    // [base], [base+off], [base+-off], [base-off], [off]
    std::size_t split = std::string::npos;
    for (std::size_t i = 1; i < in.size(); ++i)
      if (in[i] == '+' || in[i] == '-') {
        split = i;
        break;
      }
    std::string base = trim_ptx(split == std::string::npos ? in : in.substr(0, split));
    std::string off = split == std::string::npos ? "" : trim_ptx(in.substr(split));
    if (!off.empty() && off[0] == '+') off = trim_ptx(off.substr(1));
    std::int64_t v = 0;
    if (parse_int_literal(base, v) && off.empty()) {
      o.imm = v;
      return o;
    }
    if (!is_identifier(base)) malformed(line, "an address that cannot be read: '" + s + "'");
    o.name = base;
    if (!off.empty() && !parse_int_literal(off, o.imm)) malformed(line, "an address offset that cannot be read: '" + s + "'");
    return o;
  }
  if (s.front() == '{' || s.front() == '(') {
    // {%r1, %r2}: a vector; (param0, param1): a call's argument list, read as one.
    const char close = s.front() == '{' ? '}' : ')';
    if (s.back() != close) malformed(line, std::string("a list without '") + close + "': '" + s + "'");
    o.kind = Operand::Kind::vector;
    for (const auto& e : split_top(s.substr(1, s.size() - 2), line))
      if (!e.empty()) o.elems.push_back(parse_operand(e, line));
    if (o.elems.empty() && close == '}') malformed(line, "an empty vector");
    return o;
  }
  const auto bar = s.find('|');
  if (bar != std::string::npos) {
    o.kind = Operand::Kind::pair;
    o.name = trim_ptx(s.substr(0, bar));
    o.name2 = trim_ptx(s.substr(bar + 1));
    if (!is_identifier(o.name) || !is_identifier(o.name2)) malformed(line, "a register pair that cannot be read: '" + s + "'");
    return o;
  }
  if (s.front() == '!') {
    o = parse_operand(s.substr(1), line);
    if (o.kind != Operand::Kind::reg) malformed(line, "'!' before something not a predicate: '" + s + "'");
    o.negated = true;
    return o;
  }
  if (s.front() == '%') {
    if (!is_identifier(s)) malformed(line, "a register that cannot be read: '" + s + "'");
    o.kind = Operand::Kind::reg;
    o.name = s;
    return o;
  }
  const bool numeric = std::isdigit(static_cast<unsigned char>(s.front())) || s.front() == '-' || s.front() == '+';
  if (numeric) {
    o.kind = Operand::Kind::imm;
    if (s.size() == 10 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
      o.is_float = true;
      if (!parse_int_literal("0x" + s.substr(2), o.imm)) malformed(line, "a float that cannot be read: '" + s + "'");
      return o;
    }
    if (s.size() == 18 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
      o.is_float = true;
      if (!parse_int_literal("0x" + s.substr(2), o.imm)) malformed(line, "a double that cannot be read: '" + s + "'");
      return o;
    }
    if (!parse_int_literal(s, o.imm)) malformed(line, "a number that cannot be read: '" + s + "'");
    return o;
  }
  if (s == "_") {  // a sink
    o.kind = Operand::Kind::symbol;
    o.name = s;
    return o;
  }
  if (!is_identifier(s)) malformed(line, "an operand that cannot be read: '" + s + "'");
  o.kind = Operand::Kind::symbol;
  o.name = s;
  return o;
}

std::uint64_t type_bytes(const std::string& t) {
  if (t == "b8" || t == "u8" || t == "s8" || t == "pred") return 1;
  if (t == "b16" || t == "u16" || t == "s16" || t == "f16") return 2;
  if (t == "b32" || t == "u32" || t == "s32" || t == "f32") return 4;
  if (t == "b64" || t == "u64" || t == "s64" || t == "f64") return 8;
  return 0;
}

void put_le(std::vector<std::uint8_t>& out, std::uint64_t v, std::uint64_t bytes) {
  for (std::uint64_t i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// ".global .align 4 .b8 name[16] = {1, 2};" and the like (words already joined to one statement).
Variable parse_variable(const std::string& stmt, int line) {
  std::string body = stmt;
  if (!body.empty() && body.back() == ';') body.pop_back();
  std::string init;
  const auto eq = body.find('=');
  if (eq != std::string::npos) {
    init = trim_ptx(body.substr(eq + 1));
    body = body.substr(0, eq);
  }
  Variable v;
  v.line = line;
  std::string type, name;
  for (const auto& w : words_of(body)) {
    if (w == ".visible" || w == ".extern" || w == ".weak" || w == ".common") continue;
    if (w == ".shared" || w == ".local" || w == ".global" || w == ".const") {
      v.space = w.substr(1);
      continue;
    }
    if (w == ".align") {
      type = "#align";
      continue;
    }
    if (type == "#align") {
      std::int64_t a = 0;
      if (!parse_int_literal(w, a) || a <= 0) malformed(line, "an alignment that cannot be read");
      v.align = static_cast<std::uint64_t>(a);
      type.clear();
      continue;
    }
    if (w.size() > 1 && w[0] == '.' && type.empty()) {
      type = w.substr(1);
      continue;
    }
    if (!name.empty()) malformed(line, "a declaration that cannot be read: '" + stmt + "'");
    name = w;
  }
  const std::uint64_t elem = type_bytes(type);
  if (elem == 0 || name.empty()) malformed(line, "a declaration that cannot be read: '" + stmt + "'");
  std::uint64_t count = 1;
  const auto br = name.find('[');
  if (br != std::string::npos) {
    std::string dims = name.substr(br);
    name = name.substr(0, br);
    while (!dims.empty()) {
      const auto close = dims.find(']');
      if (dims[0] != '[' || close == std::string::npos) malformed(line, "array bounds that cannot be read");
      const std::string n = dims.substr(1, close - 1);
      std::int64_t k = 0;
      if (n.empty()) {
        k = 0;  // .extern .shared x[]: sized at launch
      } else if (!parse_int_literal(n, k) || k < 0) {
        malformed(line, "array bounds that cannot be read");
      }
      count *= static_cast<std::uint64_t>(k);
      dims = dims.substr(close + 1);
    }
  }
  if (!is_identifier(name)) malformed(line, "a variable name that cannot be read: '" + name + "'");
  v.name = name;
  v.bytes = elem * count;
  if (!init.empty()) {
    if (init.front() == '{') init = init.substr(1, init.size() >= 2 ? init.size() - 2 : 0);
    for (const auto& item : split_top(init, line)) {
      if (item.empty()) continue;
      Operand o = parse_operand(item, line);
      if (o.kind != Operand::Kind::imm) malformed(line, "an initialiser that is not a number");
      put_le(v.init, static_cast<std::uint64_t>(o.imm), elem);
    }
    if (v.init.size() > v.bytes) malformed(line, "more initialisers than the variable holds");
    v.init.resize(v.bytes, 0);
  }
  return v;
}

// Parameters of ".entry name(.param .u64 a, .param .align 8 .b8 b[16])".
std::vector<Param> parse_params(const std::string& list, int line) {
  std::vector<Param> out;
  std::uint64_t offset = 0;
  for (const auto& item : split_top(list, line)) {
    if (item.empty()) continue;
    std::string type, name;
    std::uint64_t align = 0, count = 1;
    const auto ws = words_of(item);
    for (std::size_t i = 0; i < ws.size(); ++i) {
      const auto& w = ws[i];
      if (w == ".param" || w == ".ptr" || w == ".global" || w == ".shared" || w == ".const" || w == ".local") continue;
      if (w == ".align" && i + 1 < ws.size()) {
        std::int64_t a = 0;
        if (!parse_int_literal(ws[++i], a) || a <= 0) malformed(line, "a parameter alignment that cannot be read");
        align = static_cast<std::uint64_t>(a);
        continue;
      }
      if (w.size() > 1 && w[0] == '.' && type.empty()) {
        type = w.substr(1);
        continue;
      }
      name = w;
    }
    const auto br = name.find('[');
    if (br != std::string::npos) {
      std::int64_t k = 0;
      if (!parse_int_literal(name.substr(br + 1, name.find(']') - br - 1), k) || k <= 0)
        malformed(line, "a parameter's bounds that cannot be read");
      count = static_cast<std::uint64_t>(k);
      name = name.substr(0, br);
    }
    const std::uint64_t elem = type_bytes(type);
    if (elem == 0 || !is_identifier(name)) malformed(line, "a parameter that cannot be read: '" + item + "'");
    Param p;
    p.name = name;
    p.type = type;
    p.bytes = elem * count;
    p.align = align ? align : elem;
    offset = (offset + p.align - 1) / p.align * p.align;
    p.offset = offset;
    offset += p.bytes;
    out.push_back(p);
  }
  return out;
}

// The lines of the text with comments removed (a /* */ may span lines; strings are kept whole).
std::vector<std::string> strip_comments(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  bool block = false, quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
      quoted = false;
      continue;
    }
    if (block) {
      if (c == '*' && i + 1 < text.size() && text[i + 1] == '/') {
        block = false;
        ++i;
      }
      continue;
    }
    if (quoted) {
      cur += c;
      if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') {
      quoted = true;
      cur += c;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      block = true;
      ++i;
      continue;
    }
    cur += c;
  }
  lines.push_back(cur);
  return lines;
}

struct LocKey {
  int file, line, column;
  bool operator<(const LocKey& o) const {
    return std::tie(file, line, column) < std::tie(o.file, o.line, o.column);
  }
};

class Parser {
 public:
  explicit Parser(const std::string& text) : lines_(strip_comments(text)) {}

  Program run() {
    while (i_ < lines_.size()) {
      const int ln = line_no();
      const std::string s = trim_ptx(lines_[i_]);
      ++i_;
      if (s.empty()) continue;
      if (s.rfind(".section", 0) == 0) {
        skip_block(ln);
        continue;
      }
      if (s.rfind(".file", 0) == 0) {
        read_file(s, ln);
        continue;
      }
      if (has_word(s, ".entry")) {
        read_entry(s, ln);
        continue;
      }
      if (has_word(s, ".func")) {
        skip_function(s, ln);
        continue;
      }
      if (has_word(s, ".global") || has_word(s, ".shared") || has_word(s, ".const")) {
        const std::string stmt = join_statement(s, ln);
        prog_.globals.push_back(parse_variable(stmt, ln));
        continue;
      }
      if (s[0] == '.') continue;  // .version, .target, .address_size, .extern .func declarations ...
      malformed(ln, "'" + s + "' is not a directive or declaration");
    }
    // Locations name files that may be declared after the code: resolve them now.
    for (auto& e : prog_.entries)
      for (auto& in : e.code) resolve(in);
    return std::move(prog_);
  }

 private:
  int line_no() const { return static_cast<int>(i_) + 1; }

  static bool has_word(const std::string& s, const std::string& w) {
    for (const auto& x : words_of(s)) {
      std::string y = x;
      const auto p = y.find('(');
      if (p != std::string::npos) y = y.substr(0, p);
      if (y == w) return true;
    }
    return false;
  }

  // A statement that may go on over lines, up to its ';'.
  std::string join_statement(std::string s, int ln) {
    while (s.find(';') == std::string::npos) {
      if (i_ >= lines_.size()) malformed(ln, "a statement without ';'");
      s += " " + trim_ptx(lines_[i_++]);
    }
    return trim_ptx(s.substr(0, s.find(';') + 1));
  }

  void skip_block(int ln) {
    // .section name { ... } : the braces may be on later lines.
    int depth = 0;
    bool opened = false;
    std::size_t from = i_ - 1;
    for (std::size_t k = from; k < lines_.size(); ++k) {
      for (char c : lines_[k]) {
        if (c == '{') {
          ++depth;
          opened = true;
        }
        if (c == '}') --depth;
      }
      if (opened && depth <= 0) {
        i_ = k + 1;
        return;
      }
    }
    malformed(ln, "a .section without its closing '}'");
  }

  void skip_function(const std::string&, int ln) {
    // A declaration ends at ';' before any '{'; a definition at its body's closing brace.
    int depth = 0;
    for (std::size_t k = i_ - 1; k < lines_.size(); ++k) {
      for (char c : lines_[k]) {
        if (c == ';' && depth == 0) {
          i_ = k + 1;
          return;
        }
        if (c == '{') ++depth;
        if (c == '}' && --depth == 0) {
          i_ = k + 1;
          return;
        }
      }
    }
    malformed(ln, "a .func without a body or ';'");
  }

  void read_file(const std::string& s, int ln) {
    // .file 2 "/path/block_sum.cu"[, timestamp, size]
    const auto q1 = s.find('"');
    const auto q2 = q1 == std::string::npos ? q1 : s.find('"', q1 + 1);
    std::int64_t n = 0;
    const auto ws = words_of(s);
    if (ws.size() < 3 || q2 == std::string::npos || !parse_int_literal(ws[1], n)) malformed(ln, "a .file that cannot be read");
    prog_.files[static_cast<int>(n)] = s.substr(q1 + 1, q2 - q1 - 1);
  }

  void read_entry(const std::string& first, int ln) {
    std::string head = first;
    while (head.find(')') == std::string::npos && head.find('{') == std::string::npos) {
      if (i_ >= lines_.size()) malformed(ln, "an .entry without its parameter list's ')'");
      head += " " + trim_ptx(lines_[i_++]);
    }
    Entry e;
    e.line = ln;
    const auto open = head.find('(');
    std::string before = trim_ptx(open == std::string::npos ? head : head.substr(0, open));
    const auto ws = words_of(before);
    if (ws.empty()) malformed(ln, "an .entry without a name");
    e.name = ws.back();
    if (e.name == ".entry" || !is_identifier(e.name)) malformed(ln, "an .entry without a name");
    if (open != std::string::npos) {
      const auto close = head.find(')', open);
      if (close == std::string::npos) malformed(ln, "an .entry without ')'");
      e.params = parse_params(head.substr(open + 1, close - open - 1), ln);
    }
    // Up to the body's '{' (performance directives such as .maxntid may come between).
    bool opened = head.find('{') != std::string::npos;
    while (!opened) {
      if (i_ >= lines_.size()) malformed(ln, "an .entry without a body");
      const std::string s = trim_ptx(lines_[i_++]);
      if (s.find('{') != std::string::npos) opened = true;
    }
    read_body(e, ln);
    prog_.entries.push_back(std::move(e));
  }

  struct Piece {
    int line = 0;
    std::string text;  // a statement with its ';', a label with its ':', a .loc line
    char brace = 0;    // '{' or '}' of a nested block (inline asm)
  };

  // The body's statements up to its closing '}' (consumed). Several statements may share a line
  // (inline asm written on one line) and one may span lines; .loc lines end without ';'.
  std::vector<Piece> body_pieces(const std::string& name, int entry_line) {
    std::vector<Piece> out;
    int depth = 1, inner = 0;
    std::string cur;
    int cur_line = 0;
    auto emit = [&]() {
      const std::string t = trim_ptx(cur);
      if (!t.empty()) out.push_back(Piece{cur_line, t, 0});
      cur.clear();
      cur_line = 0;
    };
    for (; i_ < lines_.size(); ++i_) {
      const std::string& l = lines_[i_];
      const int ln = line_no();
      bool quoted = false;
      for (std::size_t k = 0; k < l.size(); ++k) {
        const char c = l[k];
        if (cur_line == 0 && !std::isspace(static_cast<unsigned char>(c))) cur_line = ln;
        if (quoted) {
          cur += c;
          if (c == '"') quoted = false;
          continue;
        }
        if (c == '"') {
          quoted = true;
          cur += c;
          continue;
        }
        if (c == ';') {
          cur += c;
          emit();
          inner = 0;
          continue;
        }
        if (c == '{' || c == '}') {
          // A vector operand {%r1, %r2} is inside a statement: only a brace that starts one is a block.
          if (c == '{' && !trim_ptx(cur).empty()) {
            ++inner;
            cur += c;
            continue;
          }
          if (c == '}' && inner > 0) {
            --inner;
            cur += c;
            continue;
          }
          emit();
          if (c == '}' && --depth == 0) {
            ++i_;
            return out;
          }
          if (c == '{') ++depth;
          out.push_back(Piece{ln, "", c});
          continue;
        }
        if (c == ':' && (k + 1 >= l.size() || l[k + 1] != ':') && (k == 0 || l[k - 1] != ':')) {
          const std::string label = trim_ptx(cur);
          if (is_identifier(label) && label[0] != '%' && label[0] != '.') {
            cur += c;
            emit();
            continue;
          }
        }
        cur += c;
      }
      const std::string t = trim_ptx(cur);
      if (t.rfind(".loc", 0) == 0 && (t.size() == 4 || std::isspace(static_cast<unsigned char>(t[4])))) emit();
      if (!t.empty()) cur += ' ';
    }
    if (!trim_ptx(cur).empty()) malformed(cur_line, "a statement without ';': '" + trim_ptx(cur) + "'");
    malformed(entry_line, "the body of " + name + " has no closing '}'");
  }

  // Registers declared inside a nested block are its own: renamed "name#block" so that two blocks'
  // "p" are two registers.
  struct Scope {
    int id = 0;
    std::set<std::string> names;
    std::set<std::string> prefixes;  // %t<3> declares %t0..%t2
  };

  static void declare(Scope& sc, const std::string& stmt) {
    std::string t = stmt;
    if (!t.empty() && t.back() == ';') t.pop_back();
    for (auto& c : t)
      if (c == ',') c = ' ';
    const auto ws = words_of(t);
    for (std::size_t k = 1; k < ws.size(); ++k) {
      if (ws[k][0] == '.') continue;
      const auto lt = ws[k].find('<');
      if (lt != std::string::npos)
        sc.prefixes.insert(ws[k].substr(0, lt));
      else
        sc.names.insert(ws[k]);
    }
  }

  // The register a name stands for in the innermost block declaring it ("p#2"; the entry's own
  // registers keep their names); empty when no block declares it.
  static std::string scoped(const std::vector<Scope>& scopes, const std::string& name) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      bool hit = it->names.count(name) > 0;
      if (!hit)
        for (const auto& p : it->prefixes)
          if (name.size() > p.size() && name.compare(0, p.size(), p) == 0 &&
              std::all_of(name.begin() + static_cast<std::ptrdiff_t>(p.size()), name.end(),
                          [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
            hit = true;
      if (hit) return it->id == 0 ? name : name + "#" + std::to_string(it->id);
    }
    return "";
  }

  static std::string reg_name(const std::vector<Scope>& scopes, const std::string& name) {
    const std::string r = scoped(scopes, name);
    return r.empty() ? name : r;
  }

  // Renames registers of nested blocks; a declared register written without '%' ("q") is a register.
  static void rename(const std::vector<Scope>& scopes, Operand& o) {
    if (o.kind == Operand::Kind::symbol && !o.name.empty() && o.name != "_") {
      const std::string r = scoped(scopes, o.name);
      if (!r.empty()) {
        o.kind = Operand::Kind::reg;
        o.name = r;
      }
    } else if (o.kind == Operand::Kind::reg || o.kind == Operand::Kind::pair ||
               (o.kind == Operand::Kind::address && o.name2.empty())) {
      if (!o.name.empty()) o.name = reg_name(scopes, o.name);
    }
    if (o.kind == Operand::Kind::pair) o.name2 = reg_name(scopes, o.name2);
    for (auto& e : o.elems) rename(scopes, e);
  }

  void read_body(Entry& e, int entry_line) {
    std::vector<Scope> scopes(1);  // the entry's own registers (id 0), then each nested block's
    int next_scope = 0;
    for (const Piece& pc : body_pieces(e.name, entry_line)) {
      const int ln = pc.line;
      if (pc.brace == '{') {
        scopes.push_back(Scope{++next_scope, {}, {}});
        continue;
      }
      if (pc.brace == '}') {
        if (scopes.size() > 1) scopes.pop_back();
        continue;
      }
      const std::string& s = pc.text;
      if (s.back() == ':') {
        e.labels[trim_ptx(s.substr(0, s.size() - 1))] = e.code.size();
        continue;
      }
      if (s.rfind(".loc", 0) == 0 && (s.size() == 4 || std::isspace(static_cast<unsigned char>(s[4])))) {
        read_loc(s, ln);
        continue;
      }
      if (s.back() != ';') malformed(ln, "a statement without ';': '" + s + "'");
      if (s[0] == '.') {
        const auto ws = words_of(s);
        if (ws[0] == ".reg") {
          declare(scopes.back(), s);
          continue;
        }
        if (ws[0] == ".pragma" || ws[0] == ".maxntid" || ws[0] == ".reqntid" || ws[0] == ".minnctapersm" ||
            ws[0] == ".maxnreg" || ws[0] == ".param")
          continue;
        if (ws[0] == ".shared" || ws[0] == ".local" || ws[0] == ".global" || ws[0] == ".const" ||
            (ws.size() > 1 && (ws[1] == ".shared" || ws[1] == ".local"))) {
          e.vars.push_back(parse_variable(s, ln));
          continue;
        }
        malformed(ln, "a directive not read inside an entry: '" + s + "'");
      }
      Instr in = read_instr(s, ln);
      if (!in.guard.empty()) in.guard = reg_name(scopes, in.guard);
      for (auto& o : in.ops) rename(scopes, o);
      e.code.push_back(std::move(in));
    }
  }

  void read_loc(const std::string& s, int ln) {
    // .loc F L C[, function_name X, inlined_at F2 L2 C2]
    std::string t = s.substr(4);
    for (auto& c : t)
      if (c == ',') c = ' ';
    const auto ws = words_of(t);
    std::int64_t f = 0, l = 0, c = 0;
    if (ws.size() < 3 || !parse_int_literal(ws[0], f) || !parse_int_literal(ws[1], l) || !parse_int_literal(ws[2], c))
      malformed(ln, "a .loc that cannot be read");
    cur_ = {static_cast<int>(f), static_cast<int>(l), static_cast<int>(c)};
    has_loc_ = true;
    for (std::size_t k = 3; k < ws.size(); ++k) {
      if (ws[k] == "inlined_at") {
        std::int64_t f2 = 0, l2 = 0, c2 = 0;
        if (k + 3 >= ws.size() || !parse_int_literal(ws[k + 1], f2) || !parse_int_literal(ws[k + 2], l2) ||
            !parse_int_literal(ws[k + 3], c2))
          malformed(ln, "an inlined_at that cannot be read");
        parent_[cur_] = {static_cast<int>(f2), static_cast<int>(l2), static_cast<int>(c2)};
        k += 3;
      }
    }
  }

  Instr read_instr(std::string s, int ln) {
    Instr in;
    in.line = ln;
    // The statement as a person reads it in a message: each run of blanks (tabs, line breaks of a
    // statement written over several lines) one space.
    for (char c : s) {
      const bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
      if (!blank) in.text += c;
      else if (!in.text.empty() && in.text.back() != ' ') in.text += ' ';
    }
    while (!in.text.empty() && in.text.back() == ' ') in.text.pop_back();
    if (!s.empty() && s.back() == ';') s.pop_back();
    s = trim_ptx(s);
    if (!s.empty() && s[0] == '@') {
      std::size_t k = 1;
      if (k < s.size() && s[k] == '!') {
        in.guard_negated = true;
        ++k;
      }
      std::size_t end = k;
      while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
      in.guard = s.substr(k, end - k);
      if (in.guard.empty() || !is_identifier(in.guard)) malformed(ln, "a guard that cannot be read: '" + s + "'");
      s = trim_ptx(s.substr(end));
    }
    std::size_t end = 0;
    while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
    const std::string opcode = s.substr(0, end);
    if (opcode.empty()) malformed(ln, "an instruction without an opcode");
    for (char c : opcode)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == ':'))
        malformed(ln, "an opcode that cannot be read: '" + opcode + "'");
    std::size_t p = 0;
    while (true) {
      const auto dot = opcode.find('.', p);
      const std::string part = opcode.substr(p, dot == std::string::npos ? std::string::npos : dot - p);
      if (part.empty()) malformed(ln, "an opcode that cannot be read: '" + opcode + "'");
      if (in.base.empty())
        in.base = part;
      else
        in.mods.push_back(part);
      if (dot == std::string::npos) break;
      p = dot + 1;
    }
    if (!std::isalpha(static_cast<unsigned char>(in.base[0]))) malformed(ln, "an opcode that cannot be read: '" + opcode + "'");
    const std::string rest = trim_ptx(s.substr(end));
    if (!rest.empty())
      for (const auto& o : split_top(rest, ln)) in.ops.push_back(parse_operand(o, ln));
    if (has_loc_) in.loc = Location{"#" + std::to_string(cur_.file) + "#" + std::to_string(cur_.line) + "#" + std::to_string(cur_.column), cur_.line, cur_.column};
    return in;
  }

  // Turns the provisional "#F#L#C" into the student's location: the innermost whose file is not a
  // toolkit header, following inlined_at outwards.
  void resolve(Instr& in) {
    if (in.loc.file.empty()) return;
    LocKey k{};
    std::sscanf(in.loc.file.c_str(), "#%d#%d#%d", &k.file, &k.line, &k.column);
    for (int guard = 0; guard < 64; ++guard) {
      const auto f = prog_.files.find(k.file);
      const std::string path = f == prog_.files.end() ? "" : f->second;
      if (!is_toolkit_file(path)) break;
      const auto up = parent_.find(k);
      if (up == parent_.end()) break;
      k = up->second;
    }
    const auto f = prog_.files.find(k.file);
    in.loc = Location{f == prog_.files.end() ? "file " + std::to_string(k.file) : f->second, k.line, k.column};
  }

  std::vector<std::string> lines_;
  std::size_t i_ = 0;
  Program prog_;
  LocKey cur_{};
  bool has_loc_ = false;
  std::map<LocKey, LocKey> parent_;
};

}  // namespace

std::string to_string(const Location& loc) {
  if (loc.file.empty()) return "?";
  const auto slash = loc.file.find_last_of('/');
  return (slash == std::string::npos ? loc.file : loc.file.substr(slash + 1)) + ":" + std::to_string(loc.line);
}

bool Instr::has_mod(const std::string& m) const { return std::find(mods.begin(), mods.end(), m) != mods.end(); }

const Entry* Program::find(const std::string& name) const {
  for (const auto& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

bool is_toolkit_file(const std::string& path) {
  return path.find("/include/") != std::string::npos;
}

Program parse_program(const std::string& text) { return Parser(text).run(); }

}  // namespace cudasync::ptx
