#include "core/litmus/litmus_parse.hpp"

#include <cctype>
#include <set>
#include <sstream>
#include <vector>

namespace cudasync::litmus {

namespace {

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

bool is_ident(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

bool is_number(const std::string& s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i >= s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return s.size() < 18;
}

// The text, line by line, with what was consumed: errors point at line and column (1-based).
class Reader {
 public:
  Reader(const std::string& text, std::string file) : file_(std::move(file)) {
    std::string line;
    std::istringstream in(text);
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines_.push_back(line);
    }
  }

  [[noreturn]] void fail(int line, int column, const std::string& what) const {
    throw LitmusSyntaxError(file_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
  }

  const std::vector<std::string>& lines() const { return lines_; }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<std::string> lines_;
};

int column_of(const std::string& line, const std::string& piece, std::size_t from = 0) {
  const std::size_t at = line.find(piece, from);
  return at == std::string::npos ? 1 : static_cast<int>(at) + 1;
}

Scope scope_named(const std::string& q, bool& ok) {
  ok = true;
  if (q == "cta") return Scope::cta;
  if (q == "gpu") return Scope::gpu;
  if (q == "sys") return Scope::sys;
  ok = false;
  return Scope::none;
}

// Qualifiers that name a type or a state space: accepted and ignored (the model has one space).
bool ignorable(const std::string& q) {
  static const std::set<std::string> kinds = {"global", "shared", "gen", "b32", "b64", "u32", "u64", "s32", "s64",
                                              "f32",    "f64",    "cta_sync"};
  return kinds.count(q) > 0;
}

class InstrParser {
 public:
  InstrParser(const Reader& r, int line, int column) : r_(r), line_(line), column_(column) {}

  Instr parse(const std::string& text) {
    Instr in;
    in.text = text;
    in.line = line_;
    in.column = column_;
    if (text.back() == ':') {
      in.op = Op::label;
      in.target = trim(text.substr(0, text.size() - 1));
      if (!is_ident(in.target)) fail("'" + in.target + "' is not a label; expected a name such as LC00");
      return in;
    }
    std::size_t sp = 0;
    while (sp < text.size() && !std::isspace(static_cast<unsigned char>(text[sp]))) ++sp;
    const std::string mnemonic = text.substr(0, sp);
    std::vector<std::string> args;
    const std::string rest = trim(text.substr(sp));
    if (!rest.empty())
      for (const std::string& a : split(rest, ',')) args.push_back(trim(a));
    std::vector<std::string> q = split(mnemonic, '.');
    const std::string base = q.front();
    q.erase(q.begin());
    if (base == "ld" || base == "st") return memory(in, base == "ld", q, args);
    if (base == "atom" || base == "red") return rmw(in, base == "atom", q, args);
    if (base == "fence" || base == "membar") return fence(in, base, q, args);
    if (base == "bar" || base == "barrier") return barrier(in, q, args);
    if (base == "mov") {
      want(args, 2, "mov r, v");
      in.op = Op::move;
      in.dst = reg(args[0]);
      in.a = operand(args[1]);
      return in;
    }
    static const std::vector<std::pair<std::string, RmwOp>> alu = {
        {"add", RmwOp::add}, {"sub", RmwOp::sub}, {"mul", RmwOp::mul},
        {"and", RmwOp::and_}, {"or", RmwOp::or_}, {"xor", RmwOp::xor_}};
    for (const auto& [name, op] : alu)
      if (base == name) {
        want(args, 3, name + " r, a, b");
        in.op = Op::alu;
        in.rmw = op;
        in.dst = reg(args[0]);
        in.a = operand(args[1]);
        in.b = operand(args[2]);
        return in;
      }
    if (base == "beq" || base == "bne") {
      want(args, 3, base + " a, b, LABEL");
      in.op = Op::branch;
      in.branch_if_equal = base == "beq";
      in.a = operand(args[0]);
      in.b = operand(args[1]);
      in.target = args[2];
      return in;
    }
    if (base == "goto") {
      if (args.size() != 1 || !is_ident(rest)) fail("expected goto LABEL");
      in.op = Op::branch;
      in.branch_if_equal = true;  // 0 == 0: always
      in.target = rest;
      return in;
    }
    fail("'" + mnemonic + "' is not an instruction cudasync models; expected ld, st, atom, red, fence, membar, "
         "bar.sync, mov, add, sub, mul, and, or, xor, beq, bne, goto or a label");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { r_.fail(line_, column_, what); }

  void want(const std::vector<std::string>& args, std::size_t n, const std::string& form) const {
    if (args.size() != n) fail("'" + form.substr(0, form.find(' ')) + "' takes " + std::to_string(n) +
                               " operands; expected " + form);
  }

  std::string reg(const std::string& s) const {
    if (!is_ident(s)) fail("'" + s + "' is not a register; expected a name such as r0");
    return s;
  }

  std::string location(const std::string& s) const {
    std::string l = s;
    if (l.size() > 2 && l.front() == '[' && l.back() == ']') l = l.substr(1, l.size() - 2);
    if (!is_ident(l)) fail("'" + s + "' is not a location; expected a name such as x (an address in a register is not modelled)");
    return l;
  }

  Operand operand(const std::string& s) const {
    Operand o;
    if (is_number(s)) {
      o.value = std::stoll(s);
      return o;
    }
    o.is_reg = true;
    o.reg = reg(s);
    return o;
  }

  Instr memory(Instr in, bool load, const std::vector<std::string>& q, const std::vector<std::string>& args) {
    in.op = load ? Op::load : Op::store;
    bool sem_given = false, vol = false;
    for (const std::string& x : q) {
      bool scope_ok = false;
      const Scope s = scope_named(x, scope_ok);
      if (scope_ok) {
        in.scope = s;
      } else if (x == "weak") {
        in.sem = Sem::weak;
        sem_given = true;
      } else if (x == "relaxed") {
        in.sem = Sem::relaxed;
        sem_given = true;
      } else if (x == "acquire" && load) {
        in.sem = Sem::acquire;
        sem_given = true;
      } else if (x == "release" && !load) {
        in.sem = Sem::release;
        sem_given = true;
      } else if (x == "volatile") {
        vol = true;
      } else if (!ignorable(x)) {
        fail("'." + x + "' is not a qualifier of " + std::string(load ? "ld" : "st") + "; expected " +
             (load ? ".weak, .relaxed, .acquire, .volatile" : ".weak, .relaxed, .release, .volatile") +
             " and a scope .cta, .gpu or .sys");
      }
    }
    if (vol) {
      if (sem_given || in.scope != Scope::none) fail(".volatile takes no other order or scope; expected ld.volatile or st.volatile");
      in.sem = Sem::relaxed;  // ld.volatile / st.volatile: relaxed at system scope (PTX ISA, "volatile")
      in.scope = Scope::sys;
    }
    if (in.sem == Sem::weak && in.scope != Scope::none) fail("a weak access has no scope; expected .relaxed, .acquire or .release before the scope");
    if (in.sem != Sem::weak && in.scope == Scope::none)
      fail(std::string(load ? "ld." : "st.") + to_string(in.sem) + " needs a scope; expected .cta, .gpu or .sys");
    want(args, 2, load ? "ld r, x" : "st x, v");
    if (load) {
      in.dst = reg(args[0]);
      if (is_number(args[1])) {  // Dat3M's `ld r0, 1`: a register set to a constant
        in.op = Op::move;
        in.a = operand(args[1]);
        return in;
      }
      in.loc = location(args[1]);
    } else {
      in.loc = location(args[0]);
      in.a = operand(args[1]);
    }
    return in;
  }

  Instr rmw(Instr in, bool atom, const std::vector<std::string>& q, const std::vector<std::string>& args) {
    in.op = atom ? Op::atom : Op::red;
    in.sem = Sem::relaxed;  // atom and red without an order are relaxed, at .gpu scope without one
    in.scope = Scope::gpu;
    bool op_given = false;
    static const std::vector<std::pair<std::string, RmwOp>> ops = {
        {"add", RmwOp::add}, {"sub", RmwOp::sub}, {"exch", RmwOp::exch}, {"cas", RmwOp::cas}, {"max", RmwOp::max},
        {"min", RmwOp::min}, {"and", RmwOp::and_}, {"or", RmwOp::or_},   {"inc", RmwOp::inc}};
    for (const std::string& x : q) {
      bool scope_ok = false;
      const Scope s = scope_named(x, scope_ok);
      if (scope_ok) {
        in.scope = s;
        continue;
      }
      if (x == "relaxed") in.sem = Sem::relaxed;
      else if (x == "acquire") in.sem = Sem::acquire;
      else if (x == "release") in.sem = Sem::release;
      else if (x == "acq_rel") in.sem = Sem::acq_rel;
      else if (ignorable(x)) continue;
      else {
        bool found = false;
        for (const auto& [name, op] : ops)
          if (x == name) {
            in.rmw = op;
            found = op_given = true;
          }
        if (!found)
          fail("'." + x + "' is not a qualifier of " + std::string(atom ? "atom" : "red") +
               "; expected an order (.relaxed, .acquire, .release, .acq_rel), a scope and an operation "
               "(.add, .sub, .exch, .cas, .max, .min, .and, .or, .inc)");
      }
    }
    if (!op_given) fail(std::string(atom ? "atom" : "red") + " names no operation; expected .add, .exch, .cas, .max, .min, .and, .or or .inc");
    if (!atom && in.rmw == RmwOp::cas) fail("red.cas does not exist; expected atom.cas r, x, compare, value");
    const std::size_t n = (atom ? 3 : 2) + (in.rmw == RmwOp::cas ? 1 : 0);
    want(args, n, atom ? (in.rmw == RmwOp::cas ? "atom.cas r, x, compare, value" : "atom.OP r, x, v") : "red.OP x, v");
    std::size_t i = 0;
    if (atom) in.dst = reg(args[i++]);
    in.loc = location(args[i++]);
    in.a = operand(args[i++]);
    if (in.rmw == RmwOp::cas) in.b = operand(args[i++]);
    return in;
  }

  Instr fence(Instr in, const std::string& base, const std::vector<std::string>& q,
              const std::vector<std::string>& args) {
    in.op = Op::fence;
    if (!args.empty()) fail(base + " takes no operands");
    if (base == "membar") {  // membar.{cta,gl,sys} is fence.sc.{cta,gpu,sys} (PTX ISA, "membar/fence", sm_70+)
      if (q.size() != 1 || (q[0] != "cta" && q[0] != "gl" && q[0] != "sys"))
        fail("expected membar.cta, membar.gl or membar.sys");
      in.sem = Sem::sc;
      in.scope = q[0] == "cta" ? Scope::cta : q[0] == "gl" ? Scope::gpu : Scope::sys;
      return in;
    }
    bool scope_ok = false;
    if (q.size() == 2 && (q[0] == "sc" || q[0] == "acq_rel")) in.scope = scope_named(q[1], scope_ok);
    if (!scope_ok) fail("expected fence.sc or fence.acq_rel with a scope: fence.sc.gpu, fence.acq_rel.cta, ...");
    in.sem = q[0] == "sc" ? Sem::sc : Sem::acq_rel;
    return in;
  }

  Instr barrier(Instr in, const std::vector<std::string>& q, const std::vector<std::string>& args) {
    in.op = Op::barrier;
    bool sync = false;
    for (const std::string& x : q) {
      if (x == "sync") sync = true;
      else if (x != "cta" && x != "aligned")
        fail("'." + x + "' is not modelled; expected bar.sync N, bar.cta.sync N or barrier.sync N");
    }
    if (!sync) fail("only the barrier's sync form is modelled; expected bar.sync N");
    if (args.size() == 2)
      fail("a barrier with a thread count is not modelled; expected bar.sync N (every thread of the CTA arrives)");
    if (args.size() != 1 || !is_number(args[0]))
      fail("a barrier needs a constant id; expected bar.sync N (a register id is not modelled)");
    in.barrier_id = static_cast<int>(std::stoll(args[0]));
    if (in.barrier_id < 0 || in.barrier_id > 15) fail("barrier " + args[0] + "; expected an id 0..15");
    in.sem = Sem::acq_rel;
    in.scope = Scope::cta;
    return in;
  }

  const Reader& r_;
  int line_, column_;
};

// ---- the condition ---------------------------------------------------------------------------

class CondParser {
 public:
  CondParser(const Reader& r, const LitmusTest& t, std::vector<std::pair<int, std::string>> text)
      : r_(r), t_(t), chars_(std::move(text)) {}

  Cond parse() {
    Cond c = disjunction();
    skip();
    if (at_ < chars_.size()) fail("unexpected '" + rest() + "'; expected /\\, \\/ or the end of the condition");
    return c;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    const auto& [line, col] = position();
    r_.fail(line, col, what);
  }
  std::pair<int, int> position() const {
    if (at_ < chars_.size()) return {chars_[at_].first, static_cast<int>(pos_[at_])};
    return {chars_.empty() ? 1 : chars_.back().first, chars_.empty() ? 1 : static_cast<int>(pos_.back()) + 1};
  }
  std::string rest() const {
    std::string s;
    for (std::size_t i = at_; i < chars_.size() && s.size() < 12; ++i) s += chars_[i].second;
    return s;
  }
  char peek(std::size_t k = 0) const { return at_ + k < chars_.size() ? chars_[at_ + k].second[0] : '\0'; }
  void skip() {
    while (at_ < chars_.size() && std::isspace(static_cast<unsigned char>(peek()))) ++at_;
  }
  bool eat(const std::string& s) {
    skip();
    for (std::size_t k = 0; k < s.size(); ++k)
      if (peek(k) != s[k]) return false;
    at_ += s.size();
    return true;
  }

  Cond binary(Cond::Kind k, Cond a, Cond b) {
    Cond c;
    c.kind = k;
    c.kids = {std::make_shared<Cond>(std::move(a)), std::make_shared<Cond>(std::move(b))};
    return c;
  }
  Cond disjunction() {
    Cond c = conjunction();
    while (eat("\\/")) c = binary(Cond::Kind::or_, std::move(c), conjunction());
    return c;
  }
  Cond conjunction() {
    Cond c = unary();
    while (eat("/\\")) c = binary(Cond::Kind::and_, std::move(c), unary());
    return c;
  }
  Cond unary() {
    skip();
    if (peek() == '~' || (peek() == 'n' && peek(1) == 'o' && peek(2) == 't' && !std::isalnum(static_cast<unsigned char>(peek(3))))) {
      at_ += peek() == '~' ? 1 : 3;
      Cond c;
      c.kind = Cond::Kind::not_;
      c.kids = {std::make_shared<Cond>(unary())};
      return c;
    }
    if (eat("(")) {
      Cond c = disjunction();
      if (!eat(")")) fail("expected ')'");
      return c;
    }
    if (eat("true")) return Cond{};
    Cond c;
    c.lhs = term();
    skip();
    if (eat("!=")) c.kind = Cond::Kind::ne;
    else if (eat("==") || eat("=")) c.kind = Cond::Kind::eq;
    else fail("expected ==, = or != after a term");
    c.rhs = term();
    return c;
  }
  Term term() {
    skip();
    std::string word;
    while (at_ < chars_.size() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == ':' ||
                                   peek() == '-'))
      word += chars_[at_++].second;
    Term t;
    if (word.empty()) fail("expected a register (P1:r0), a location (x) or a number");
    if (is_number(word)) {
      t.value = std::stoll(word);
      return t;
    }
    const std::size_t colon = word.find(':');
    if (colon != std::string::npos) {
      std::string th = word.substr(0, colon);
      if (is_number(th)) th = "P" + th;  // herd's 1:r0
      t.kind = Term::Kind::reg;
      t.name = word.substr(colon + 1);
      if (t.name.empty()) {  // "P3: r0"
        skip();
        while (at_ < chars_.size() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_'))
          t.name += chars_[at_++].second;
      }
      for (std::size_t i = 0; i < t_.threads.size(); ++i)
        if (t_.threads[i].name == th) t.thread = static_cast<int>(i);
      if (t.thread < 0) fail("'" + th + "' is not a thread of this test; expected P0 .. P" + std::to_string(t_.threads.size() - 1));
      if (!is_ident(t.name)) fail("'" + t.name + "' is not a register");
      return t;
    }
    if (!is_ident(word)) fail("'" + word + "' is not a location");
    t.kind = Term::Kind::loc;
    t.name = word;
    return t;
  }

 public:
  std::vector<std::size_t> pos_;

 private:
  const Reader& r_;
  const LitmusTest& t_;
  std::vector<std::pair<int, std::string>> chars_;  // (line, one character)
  std::size_t at_ = 0;
};

Placement placement(const Reader& r, int line, int column, const std::string& spec) {
  Placement p;
  if (trim(spec) == "host") {
    p.host = true;
    return p;
  }
  for (const std::string& part : split(spec, ',')) {
    std::istringstream in(trim(part));
    std::string key, extra;
    long long n = -1;
    in >> key >> n;
    if (!(in >> extra).fail() || n < 0 || n > 1023 || (key != "cta" && key != "gpu" && key != "warp"))
      r.fail(line, column, "'" + trim(part) + "' is not a placement; expected cta N, gpu N, warp N or host");
    (key == "cta" ? p.cta : key == "gpu" ? p.gpu : p.warp) = static_cast<int>(n);
  }
  return p;
}

}  // namespace

LitmusTest parse_litmus(const std::string& text, const std::string& file) {
  const Reader r(text, file);
  const auto& lines = r.lines();
  LitmusTest t;
  t.file = file;
  std::size_t i = 0;
  const auto blank = [&](std::size_t k) { return trim(lines[k]).empty(); };
  while (i < lines.size() && blank(i)) ++i;
  if (i == lines.size()) r.fail(1, 1, "the file is empty; expected a first line PTX NAME");
  {
    std::istringstream head(lines[i]);
    std::string arch, name;
    head >> arch >> name;
    if (arch != "PTX") r.fail(static_cast<int>(i) + 1, 1, "'" + arch + "' is not PTX; expected a first line PTX NAME (cudasync reads PTX litmus tests)");
    if (name.empty()) r.fail(static_cast<int>(i) + 1, 4, "the test has no name; expected PTX NAME");
    t.name = name;
    ++i;
  }
  // Quoted lines (a comment may span lines), up to the initial values.
  std::string all;
  std::size_t k = i;
  bool quoted = false;
  for (; k < lines.size(); ++k) {
    const std::string& l = lines[k];
    std::size_t c = 0;
    for (; c < l.size(); ++c) {
      if (l[c] == '"') {
        quoted = !quoted;
        continue;
      }
      if (quoted) {
        t.doc += l[c];
        continue;
      }
      if (l[c] == '{') break;
      if (!std::isspace(static_cast<unsigned char>(l[c])))
        r.fail(static_cast<int>(k) + 1, static_cast<int>(c) + 1, "expected a quoted line or '{' and the initial values");
    }
    if (quoted) t.doc += ' ';
    if (c < l.size()) break;
  }
  if (k == lines.size()) r.fail(static_cast<int>(lines.size()), 1, "no '{': expected the initial values { x=0; }");
  t.doc = trim(t.doc);
  // The initial values, from '{' to '}', perhaps over several lines.
  std::string init;
  std::size_t open_line = k;
  std::size_t col = lines[k].find('{') + 1;
  bool closed = false;
  for (; k < lines.size() && !closed; ++k, col = 0) {
    const std::string& l = lines[k];
    for (; col < l.size(); ++col) {
      if (l[col] == '}') {
        closed = true;
        break;
      }
      init += l[col];
    }
    init += ' ';
  }
  if (!closed) r.fail(static_cast<int>(open_line) + 1, 1, "the initial values are not closed; expected '}'");
  for (const std::string& item0 : split(init, ';')) {
    const std::string item = trim(item0);
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos)
      r.fail(static_cast<int>(open_line) + 1, 1, "'" + item + "' is not an initial value; expected x=0 or P1:r0=0");
    std::string lhs = trim(item.substr(0, eq));
    const std::string rhs = trim(item.substr(eq + 1));
    if (lhs.find(' ') != std::string::npos) lhs = trim(lhs.substr(lhs.rfind(' ')));  // "int x = 0"
    if (!is_number(rhs))
      r.fail(static_cast<int>(open_line) + 1, 1, "'" + item + "': the value is not a number; expected x=0 or P1:r0=0");
    const std::size_t colon = lhs.find(':');
    if (colon == std::string::npos) {
      if (!is_ident(lhs)) r.fail(static_cast<int>(open_line) + 1, 1, "'" + lhs + "' is not a location name");
      t.memory[lhs] = std::stoll(rhs);
    } else {
      t.regs[{-1, lhs}] = std::stoll(rhs);  // resolved to its thread below
    }
  }
  // The threads' row.
  while (k < lines.size() && blank(k)) ++k;
  if (k == lines.size()) r.fail(static_cast<int>(lines.size()), 1, "no threads; expected a row P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;");
  {
    std::string row = lines[k];
    const std::size_t semi = row.rfind(';');
    if (semi != std::string::npos) row = row.substr(0, semi);
    std::size_t from = 0;
    for (const std::string& cell0 : split(row, '|')) {
      const std::string cell = trim(cell0);
      const int c = column_of(lines[k], cell, from);
      from = static_cast<std::size_t>(c);
      Thread th;
      const std::size_t at = cell.find('@');
      th.name = trim(cell.substr(0, at));
      if (th.name.size() < 2 || th.name[0] != 'P' || !is_number(th.name.substr(1)) ||
          std::stoll(th.name.substr(1)) != static_cast<long long>(t.threads.size()))
        r.fail(static_cast<int>(k) + 1, c, "'" + th.name + "' is not the next thread; expected P" + std::to_string(t.threads.size()));
      if (at != std::string::npos) th.where = placement(r, static_cast<int>(k) + 1, c, cell.substr(at + 1));
      else th.where.cta = static_cast<int>(t.threads.size());  // unsaid: a CTA of its own
      t.threads.push_back(std::move(th));
    }
    if (t.threads.size() > 8) r.fail(static_cast<int>(k) + 1, 1, std::to_string(t.threads.size()) + " threads; expected at most 8");
    ++k;
  }
  // Instruction rows up to the quantifier.
  std::size_t cond_line = lines.size();
  for (; k < lines.size(); ++k) {
    const std::string l = trim(lines[k]);
    if (l.empty()) continue;
    if (l.rfind("exists", 0) == 0 || l.rfind("~exists", 0) == 0 || l.rfind("~ exists", 0) == 0 || l.rfind("forall", 0) == 0) {
      cond_line = k;
      break;
    }
    std::string row = lines[k];
    const std::size_t semi = row.rfind(';');
    if (semi == std::string::npos)
      r.fail(static_cast<int>(k) + 1, static_cast<int>(row.size()) + 1, "the row does not end with ';'");
    row = row.substr(0, semi);
    const std::vector<std::string> cells = split(row, '|');
    if (cells.size() != t.threads.size())
      r.fail(static_cast<int>(k) + 1, 1, std::to_string(cells.size()) + " cells; expected one per thread (" +
                                             std::to_string(t.threads.size()) + "), separated by |");
    std::size_t from = 0;
    for (std::size_t th = 0; th < cells.size(); ++th) {
      const std::string cell = trim(cells[th]);
      const std::size_t start = lines[k].find(cells[th], from);
      from = start + cells[th].size();
      if (cell.empty()) continue;
      const int c = column_of(lines[k], cell, start == std::string::npos ? 0 : start);
      t.threads[th].code.push_back(InstrParser(r, static_cast<int>(k) + 1, c).parse(cell));
    }
  }
  if (cond_line == lines.size()) r.fail(static_cast<int>(lines.size()), 1, "no condition; expected exists (...), ~exists (...) or forall (...)");
  // Registers' initial values: P1:r0=0.
  std::map<std::pair<int, std::string>, long long> regs;
  for (const auto& [key, v] : t.regs) {
    const std::string& full = key.second;
    const std::string th = full.substr(0, full.find(':'));
    int idx = -1;
    for (std::size_t n = 0; n < t.threads.size(); ++n)
      if (t.threads[n].name == th) idx = static_cast<int>(n);
    if (idx < 0) r.fail(static_cast<int>(open_line) + 1, 1, "'" + full + "': no thread " + th);
    regs[{idx, full.substr(full.find(':') + 1)}] = v;
  }
  t.regs = regs;
  // Branches go forward to a label of their thread.
  for (Thread& th : t.threads) {
    for (std::size_t n = 0; n < th.code.size(); ++n) {
      const Instr& in = th.code[n];
      if (in.op != Op::branch) continue;
      bool ahead = false, behind = false;
      for (std::size_t m = 0; m < th.code.size(); ++m)
        if (th.code[m].op == Op::label && th.code[m].target == in.target) (m > n ? ahead : behind) = true;
      if (behind && !ahead)
        r.fail(in.line, in.column, "a branch back to " + in.target + " is a loop, which the model does not unroll; expected a forward branch");
      if (!ahead) r.fail(in.line, in.column, "no label " + in.target + " in " + th.name);
    }
  }
  // The condition: the rest of the text.
  std::string first = trim(lines[cond_line]);
  if (first.rfind("forall", 0) == 0) t.quantifier = Quantifier::forall;
  else if (first[0] == '~') t.quantifier = Quantifier::not_exists;
  const std::size_t kw = lines[cond_line].find("exists") != std::string::npos && t.quantifier != Quantifier::forall
                             ? lines[cond_line].find("exists") + 6
                             : lines[cond_line].find("forall") + 6;
  std::vector<std::pair<int, std::string>> chars;
  std::vector<std::size_t> pos;
  for (std::size_t n = cond_line; n < lines.size(); ++n) {
    const std::size_t from = n == cond_line ? kw : 0;
    for (std::size_t c = from; c < lines[n].size(); ++c) {
      chars.push_back({static_cast<int>(n) + 1, std::string(1, lines[n][c])});
      pos.push_back(c + 1);
    }
    chars.push_back({static_cast<int>(n) + 1, " "});
    pos.push_back(lines[n].size() + 1);
    t.condition_text += (n == cond_line ? trim(lines[n].substr(kw)) : " " + trim(lines[n]));
  }
  t.condition_text = trim(t.condition_text);
  CondParser cp(r, t, chars);
  cp.pos_ = pos;
  t.condition = cp.parse();
  return t;
}

const char* to_string(Scope s) {
  switch (s) {
    case Scope::cta: return "cta";
    case Scope::gpu: return "gpu";
    case Scope::sys: return "sys";
    case Scope::none: break;
  }
  return "";
}

const char* to_string(Sem s) {
  switch (s) {
    case Sem::weak: return "weak";
    case Sem::relaxed: return "relaxed";
    case Sem::acquire: return "acquire";
    case Sem::release: return "release";
    case Sem::acq_rel: return "acq_rel";
    case Sem::sc: return "sc";
  }
  return "";
}

const char* to_string(Quantifier q) {
  switch (q) {
    case Quantifier::exists: return "exists";
    case Quantifier::not_exists: return "~exists";
    case Quantifier::forall: return "forall";
  }
  return "";
}

namespace {
std::string term_text(const Term& x, const LitmusTest& t) {
  switch (x.kind) {
    case Term::Kind::reg: return t.threads[static_cast<std::size_t>(x.thread)].name + ":" + x.name;
    case Term::Kind::loc: return x.name;
    case Term::Kind::value: return std::to_string(x.value);
  }
  return "";
}
}  // namespace

std::string to_string(const Cond& c, const LitmusTest& t) {
  switch (c.kind) {
    case Cond::Kind::truth: return "true";
    case Cond::Kind::eq: return term_text(c.lhs, t) + " == " + term_text(c.rhs, t);
    case Cond::Kind::ne: return term_text(c.lhs, t) + " != " + term_text(c.rhs, t);
    case Cond::Kind::not_: return "~(" + to_string(*c.kids[0], t) + ")";
    case Cond::Kind::and_: return to_string(*c.kids[0], t) + " /\\ " + to_string(*c.kids[1], t);
    case Cond::Kind::or_: return "(" + to_string(*c.kids[0], t) + " \\/ " + to_string(*c.kids[1], t) + ")";
  }
  return "";
}

std::string placement_text(const Placement& p) {
  if (p.host) return "host";
  std::string s = "cta " + std::to_string(p.cta) + ", gpu " + std::to_string(p.gpu);
  if (p.warp >= 0) s = "warp " + std::to_string(p.warp) + ", " + s;
  return s;
}

}  // namespace cudasync::litmus
