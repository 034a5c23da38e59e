#include "core/ptx/ptx_machine.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "core/report/text_format.hpp"

namespace cudasync::ptx {

// Named, not anonymous: Machine::Impl holds these types (GCC warns of a class with fields of an
// anonymous namespace's types when a unity build includes this file).
namespace machine_impl {

// Generic addresses: global buffers from kGlobalBase (256-byte aligned, a 256-byte gap between
// two so an access past the end is outside every buffer); the shared and local windows above.
constexpr std::uint64_t kGlobalBase = 0x0000100000000000ull;
constexpr std::uint64_t kSharedWindow = 0x00007e0000000000ull;
constexpr std::uint64_t kLocalWindow = 0x00007f0000000000ull;
constexpr std::uint64_t kWindowSize = 1ull << 32;
constexpr std::uint64_t kSharedKeyBit = 1ull << 62;  // shadow keys of shared memory: bit | block << 32 | offset

enum class Op {
  ld, st, mov, add, sub, mul, mad, fma, div, rem, min, max, abs, neg, and_, or_, xor_, not_, cnot, shl, shr,
  selp, setp, cvt, cvta, bra, ret, exit, shfl, vote, match, redux, activemask, bar, bar_warp, fence, atom, red,
  nanosleep, popc, clz, brev, prmt, shf, bfe, bfi, bfind, trap
};
enum class Space { generic, param, global, shared, local, const_ };
enum class Sem { weak, relaxed, volatile_, acquire, release, acq_rel };
enum class Special {
  tid_x, tid_y, tid_z, ntid_x, ntid_y, ntid_z, ctaid_x, ctaid_y, ctaid_z, nctaid_x, nctaid_y, nctaid_z, laneid,
  warpid, nwarpid, clock, clock64, globaltimer, lanemask_eq, lanemask_lt, lanemask_le, lanemask_gt, lanemask_ge,
  smid, nsmid
};

struct Ty {
  char k = 'b';  // u s b f p
  int bits = 32;
};

struct Opd {
  enum class K { none, reg, imm, special, addr, pair, vec, sym, sink };
  K k = K::none;
  int reg = -1, reg2 = -1;
  bool neg = false;
  std::int64_t imm = 0;
  bool fl = false;
  Special special = Special::tid_x;
  bool has_sym = false;
  Space sym_space = Space::generic;
  std::uint64_t sym_value = 0;
  std::vector<Opd> elems;
};

struct Dec {
  Op op = Op::mov;
  Ty t, t2;
  int guard = -1;
  bool guard_neg = false;
  Space space = Space::generic;
  Sem sem = Sem::weak;
  Scope scope = Scope::none;
  int vec = 1;
  int mode = 0;
  int mode2 = 0;
  int rnd = 0;  // cvt: 0 none, 1 rn/rni, 2 rz/rzi, 3 rm/rmi, 4 rp/rpi
  bool sat = false;
  bool to = false;
  std::size_t target = 0;
  std::vector<Opd> o;
  bool memory = false;  // a memory access or fence: ends a switch-every-access turn
};

// Modes.
enum { kMulLo = 0, kMulHi, kMulWide };
enum { kShflUp = 0, kShflDown, kShflBfly, kShflIdx };
enum { kVoteAll = 0, kVoteAny, kVoteUni, kVoteBallot };
enum { kRedAdd = 0, kRedMin, kRedMax, kRedAnd, kRedOr, kRedXor, kRedExch, kRedCas, kRedInc, kRedDec };
enum { kBarSync = 0, kBarArrive, kBarRed };
enum { kCmpEq = 0, kCmpNe, kCmpLt, kCmpLe, kCmpGt, kCmpGe, kCmpEqu, kCmpNeu, kCmpLtu, kCmpLeu, kCmpGtu, kCmpGeu, kCmpNum, kCmpNan };

bool type_of(const std::string& m, Ty& t) {
  static const std::map<std::string, Ty> types = {
      {"u8", {'u', 8}},   {"u16", {'u', 16}}, {"u32", {'u', 32}}, {"u64", {'u', 64}}, {"s8", {'s', 8}},
      {"s16", {'s', 16}}, {"s32", {'s', 32}}, {"s64", {'s', 64}}, {"b8", {'b', 8}},   {"b16", {'b', 16}},
      {"b32", {'b', 32}}, {"b64", {'b', 64}}, {"f32", {'f', 32}}, {"f64", {'f', 64}}, {"pred", {'p', 1}}};
  const auto it = types.find(m);
  if (it == types.end()) return false;
  t = it->second;
  return true;
}

std::uint64_t mask_bits(int bits) { return bits >= 64 ? ~0ull : ((1ull << bits) - 1); }

std::uint64_t ext(std::uint64_t v, Ty t) {
  if (t.bits >= 64) return v;
  v &= mask_bits(t.bits);
  if (t.k == 's' && (v >> (t.bits - 1)) & 1) v |= ~mask_bits(t.bits);
  return v;
}

float as_f32(std::uint64_t v) {
  const auto u = static_cast<std::uint32_t>(v);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
double as_f64(std::uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
std::uint64_t of_f32(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
std::uint64_t of_f64(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

const std::map<std::string, Special>& specials() {
  static const std::map<std::string, Special> m = {
      {"%tid.x", Special::tid_x},         {"%tid.y", Special::tid_y},           {"%tid.z", Special::tid_z},
      {"%ntid.x", Special::ntid_x},       {"%ntid.y", Special::ntid_y},         {"%ntid.z", Special::ntid_z},
      {"%ctaid.x", Special::ctaid_x},     {"%ctaid.y", Special::ctaid_y},       {"%ctaid.z", Special::ctaid_z},
      {"%nctaid.x", Special::nctaid_x},   {"%nctaid.y", Special::nctaid_y},     {"%nctaid.z", Special::nctaid_z},
      {"%laneid", Special::laneid},       {"%warpid", Special::warpid},         {"%nwarpid", Special::nwarpid},
      {"%clock", Special::clock},         {"%clock64", Special::clock64},       {"%globaltimer", Special::globaltimer},
      {"%lanemask_eq", Special::lanemask_eq}, {"%lanemask_lt", Special::lanemask_lt},
      {"%lanemask_le", Special::lanemask_le}, {"%lanemask_gt", Special::lanemask_gt},
      {"%lanemask_ge", Special::lanemask_ge}, {"%smid", Special::smid}, {"%nsmid", Special::nsmid}};
  return m;
}

struct Var {
  std::string name;
  std::uint64_t offset = 0;  // shared / local: offset in the space; global: address
  std::uint64_t bytes = 0;
};

struct GlobalBuf {
  std::string name;
  std::uint64_t base = 0;
  std::vector<std::uint8_t> data;
};

struct Barrier {
  int arrived = 0;
  int expected = -1;
  std::size_t first_pc = 0;  // the instruction of the phase's first arrival
  int first_thread = -1;
  std::vector<int> waiters;
  Clock acc;
  std::uint32_t red = 0;
  int red_kind = 0;  // 0 popc, 1 and, 2 or
  int red_count = 0;
};

enum class St { run, warp_wait, bar_wait, exited };

struct Thr {
  std::size_t pc = 0;
  St st = St::run;
  int block = 0, tid = 0, lane = 0, warp = 0;
  std::uint32_t wait_mask = 0;
  int bar_id = -1;
};

// The high 64 bits of a 64 x 64-bit product (mul.hi.u64 / .s64), without a 128-bit type.
std::uint64_t mul_hi_u64(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t a0 = a & 0xffffffffull, a1 = a >> 32, b0 = b & 0xffffffffull, b1 = b >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffull) + (p10 & 0xffffffffull);
  return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
std::uint64_t mul_hi_s64(std::int64_t a, std::int64_t b) {
  std::uint64_t h = mul_hi_u64(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b));
  if (a < 0) h -= static_cast<std::uint64_t>(b);
  if (b < 0) h -= static_cast<std::uint64_t>(a);
  return h;
}

std::string ranges_of(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return report::ranges_text(v);
}

// The name a student wrote for a function's static or __shared__ variable, from its mangled name:
// "_ZZ9block_sumiE9warp_sums" -> "warp_sums" (a name that is not of that form is kept).
std::string source_name(const std::string& mangled) {
  if (mangled.rfind("_ZZ", 0) != 0) return mangled;
  for (std::size_t e = mangled.size(); e-- > 3;) {
    if (mangled[e] != 'E') continue;
    std::size_t i = e + 1, n = 0;
    while (i < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[i])))
      n = n * 10 + static_cast<std::size_t>(mangled[i++] - '0');
    if (n == 0 || i + n > mangled.size()) continue;
    const std::string rest = mangled.substr(i + n);
    if (rest.empty() || (rest[0] == '_' && rest.size() > 1)) return mangled.substr(i, n);
  }
  return mangled;
}

std::string hex32(std::uint32_t v) {
  static const char* d = "0123456789abcdef";
  std::string s = "0x";
  for (int i = 7; i >= 0; --i) s += d[(v >> (4 * i)) & 0xf];
  return s;
}

}  // namespace machine_impl

using namespace machine_impl;

struct Machine::Impl {
  const Entry* entry = nullptr;
  int grid = 1, block = 32, threads = 32;
  Limits limits;
  std::vector<GlobalBuf> bufs;  // the caller's, then the module's .global variables
  int caller_bufs = 0;
  std::uint64_t next_base = kGlobalBase;
  std::vector<Param> params;
  std::vector<std::uint8_t> param_bytes;
  std::map<std::string, Var> shared_vars, local_vars, global_vars;
  std::uint64_t shared_bytes = 0, local_bytes = 0, dynamic_shared = 0;
  std::string dynamic_shared_name;
  std::unordered_map<std::string, int> reg_index;
  std::vector<Dec> code;
  const std::vector<Instr>* src = nullptr;
  bool ran = false;

  // Run state.
  std::vector<Thr> thr;
  std::vector<std::uint64_t> regs;
  std::size_t nregs = 0;
  std::vector<std::vector<std::uint8_t>> shared, shared_written;
  std::vector<std::vector<std::uint8_t>> local;
  std::vector<std::array<Barrier, 16>> barriers;
  std::vector<int> exited_in_block;
  RunnableSet runnable;
  std::unique_ptr<HappensBefore> hb;
  int gpus = 1;  // Launch::gpus
  Outcome out;
  bool fatal = false;
  bool yielded = false;
  bool accessed = false;
  std::uint64_t steps = 0;
  std::string sched_name;
  std::set<std::pair<int, int>> race_pairs;
  std::set<int> uninit_reported;

  // ---- setup --------------------------------------------------------------------------------

  [[noreturn]] void unsupported(const Instr& in, const std::string& why) const {
    throw Error("unsupported-instruction", in.line,
                "the PTX model does not implement '" + in.text + "' (PTX line " + std::to_string(in.line) + ", " +
                    to_string(in.loc) + ")" + (why.empty() ? "" : ": " + why));
  }

  std::uint64_t alloc_global(std::vector<std::uint8_t> bytes, std::string name) {
    GlobalBuf b;
    b.name = std::move(name);
    b.base = next_base;
    const std::uint64_t size = bytes.size();
    b.data = std::move(bytes);
    next_base += (size + 255) / 256 * 256 + 256;
    bufs.push_back(std::move(b));
    return bufs.back().base;
  }

  void layout(const Program& p) {
    for (const auto& v : p.globals) {
      if (v.space == "global" || v.space == "const") {
        std::vector<std::uint8_t> init = v.init;
        init.resize(v.bytes, 0);
        global_vars[v.name] = Var{v.name, alloc_global(std::move(init), v.name), v.bytes};
      } else if (v.space == "shared" && v.bytes > 0) {
        add_var(shared_vars, shared_bytes, v);
      }
    }
    for (const auto& v : entry->vars) {
      if (v.space == "shared" && v.bytes > 0)
        add_var(shared_vars, shared_bytes, v);
      else if (v.space == "shared")
        continue;
      else if (v.space == "local")
        add_var(local_vars, local_bytes, v);
      else
        throw Error("unsupported-instruction", v.line, "a ." + v.space + " variable inside an entry is not modelled");
    }
    // An .extern .shared array (bytes 0) starts after every static one: launch.dynamic_shared sizes it.
    for (const auto& v : p.globals)
      if (v.space == "shared" && v.bytes == 0) add_var(shared_vars, shared_bytes, v);
    for (const auto& v : entry->vars)
      if (v.space == "shared" && v.bytes == 0) add_var(shared_vars, shared_bytes, v);
    params = entry->params;
    std::uint64_t end = 0;
    for (const auto& q : params) end = std::max(end, q.offset + q.bytes);
    param_bytes.assign(end, 0);
  }

  void add_var(std::map<std::string, Var>& into, std::uint64_t& size, const Variable& v) {
    const std::uint64_t a = std::max<std::uint64_t>(v.align, 1);
    size = (size + a - 1) / a * a;
    into[v.name] = Var{v.name, size, v.bytes};
    if (v.bytes == 0 && &into == &shared_vars) dynamic_shared_name = v.name;
    size += v.bytes;
  }

  int reg_of(const std::string& name) {
    const auto it = reg_index.find(name);
    if (it != reg_index.end()) return it->second;
    const int i = static_cast<int>(reg_index.size());
    reg_index[name] = i;
    return i;
  }

  Opd operand(const Instr& in, const Operand& o) {
    Opd d;
    switch (o.kind) {
      case Operand::Kind::reg: {
        const auto sp = specials().find(o.name);
        if (sp != specials().end()) {
          d.k = Opd::K::special;
          d.special = sp->second;
        } else if (o.name.rfind("%envreg", 0) == 0 || o.name.rfind("%pm", 0) == 0 || o.name.rfind("%cluster", 0) == 0 ||
                   o.name.rfind("%total_smem", 0) == 0 || o.name.rfind("%dynamic_smem", 0) == 0 ||
                   o.name.rfind("%gridid", 0) == 0 || o.name.rfind("%is_explicit", 0) == 0) {
          unsupported(in, "the special register " + o.name + " is not modelled");
        } else {
          d.k = Opd::K::reg;
          d.reg = reg_of(o.name);
        }
        d.neg = o.negated;
        return d;
      }
      case Operand::Kind::imm:
        d.k = Opd::K::imm;
        d.imm = o.imm;
        d.fl = o.is_float;
        return d;
      case Operand::Kind::pair:
        d.k = Opd::K::pair;
        d.reg = reg_of(o.name);
        d.reg2 = reg_of(o.name2);
        return d;
      case Operand::Kind::vector:
        d.k = Opd::K::vec;
        for (const auto& e : o.elems) d.elems.push_back(operand(in, e));
        return d;
      case Operand::Kind::symbol:
        if (o.name == "_") {
          d.k = Opd::K::sink;
          return d;
        }
        if (in.base == "bra") {
          d.k = Opd::K::sym;
          return d;
        }
        d.k = Opd::K::sym;
        resolve_symbol(in, o.name, d);
        return d;
      case Operand::Kind::address:
        if (o.name2 == "composite") unsupported(in, "the operand [" + o.name + "] is not modelled");
        d.k = Opd::K::addr;
        d.imm = o.imm;
        if (!o.name.empty()) {
          if (o.name[0] == '%' && !specials().count(o.name)) {
            d.reg = reg_of(o.name);
          } else {
            resolve_symbol(in, o.name, d);
          }
        }
        return d;
    }
    return d;
  }

  void resolve_symbol(const Instr& in, const std::string& name, Opd& d) {
    d.has_sym = true;
    for (const auto& q : params)
      if (q.name == name) {
        d.sym_space = Space::param;
        d.sym_value = q.offset;
        return;
      }
    if (auto it = shared_vars.find(name); it != shared_vars.end()) {
      d.sym_space = Space::shared;
      d.sym_value = it->second.offset;
      return;
    }
    if (auto it = local_vars.find(name); it != local_vars.end()) {
      d.sym_space = Space::local;
      d.sym_value = it->second.offset;
      return;
    }
    if (auto it = global_vars.find(name); it != global_vars.end()) {
      d.sym_space = Space::global;
      d.sym_value = it->second.offset;
      return;
    }
    unsupported(in, "the symbol " + name + " is not declared in this module");
  }

  Dec decode(const Instr& in) {
    Dec d;
    if (!in.guard.empty()) {
      d.guard = reg_of(in.guard);
      d.guard_neg = in.guard_negated;
    }
    const std::string& b = in.base;
    static const std::map<std::string, Op> ops = {
        {"ld", Op::ld},         {"st", Op::st},       {"mov", Op::mov},       {"add", Op::add},
        {"sub", Op::sub},       {"mul", Op::mul},     {"mad", Op::mad},       {"fma", Op::fma},
        {"div", Op::div},       {"rem", Op::rem},     {"min", Op::min},       {"max", Op::max},
        {"abs", Op::abs},       {"neg", Op::neg},     {"and", Op::and_},      {"or", Op::or_},
        {"xor", Op::xor_},      {"not", Op::not_},    {"cnot", Op::cnot},     {"shl", Op::shl},
        {"shr", Op::shr},       {"selp", Op::selp},   {"setp", Op::setp},     {"cvt", Op::cvt},
        {"cvta", Op::cvta},     {"bra", Op::bra},     {"ret", Op::ret},       {"exit", Op::exit},
        {"shfl", Op::shfl},     {"vote", Op::vote},   {"match", Op::match},   {"redux", Op::redux},
        {"activemask", Op::activemask}, {"bar", Op::bar}, {"barrier", Op::bar}, {"membar", Op::fence},
        {"fence", Op::fence},   {"atom", Op::atom},   {"red", Op::red},       {"nanosleep", Op::nanosleep},
        {"popc", Op::popc},     {"clz", Op::clz},     {"brev", Op::brev},     {"prmt", Op::prmt},
        {"shf", Op::shf},       {"bfe", Op::bfe},     {"bfi", Op::bfi},       {"trap", Op::trap},
        {"bfind", Op::bfind}};
    const auto it = ops.find(b);
    if (it == ops.end()) unsupported(in, "");
    d.op = it->second;
    int types = 0;
    bool sem_seen = false;
    for (const auto& m : in.mods) {
      Ty t;
      if (type_of(m, t)) {
        if (types == 0) d.t = t; else d.t2 = t;
        ++types;
        continue;
      }
      if (!modifier(in, d, m, sem_seen)) unsupported(in, "the modifier ." + m + " is not modelled");
    }
    if (d.op == Op::bar && in.has_mod("warp")) d.op = Op::bar_warp;
    if ((d.t.k == 'f' && d.t.bits == 16) || (d.t2.k == 'f' && d.t2.bits == 16)) unsupported(in, "half floats are not modelled");
    for (const auto& o : in.ops) d.o.push_back(operand(in, o));
    finish(in, d, types);
    return d;
  }

  // One modifier of an instruction: true when it is understood.
  bool modifier(const Instr& in, Dec& d, const std::string& m, bool& sem_seen) {
    static const std::map<std::string, Space> spaces = {{"param", Space::param}, {"global", Space::global},
                                                        {"shared", Space::shared}, {"local", Space::local},
                                                        {"const", Space::const_}};
    static const std::map<std::string, Scope> scopes = {{"cta", Scope::cta}, {"gpu", Scope::gpu}, {"sys", Scope::sys}};
    static const std::map<std::string, int> cmps = {
        {"eq", kCmpEq},   {"ne", kCmpNe},   {"lt", kCmpLt},   {"le", kCmpLe},   {"gt", kCmpGt},   {"ge", kCmpGe},
        {"lo", kCmpLt},   {"ls", kCmpLe},   {"hi", kCmpGt},   {"hs", kCmpGe},   {"equ", kCmpEqu}, {"neu", kCmpNeu},
        {"ltu", kCmpLtu}, {"leu", kCmpLeu}, {"gtu", kCmpGtu}, {"geu", kCmpGeu}, {"num", kCmpNum}, {"nan", kCmpNan}};
    static const std::map<std::string, int> rmw = {{"add", kRedAdd}, {"min", kRedMin}, {"max", kRedMax},
                                                   {"and", kRedAnd}, {"or", kRedOr},   {"xor", kRedXor},
                                                   {"exch", kRedExch}, {"cas", kRedCas}, {"inc", kRedInc},
                                                   {"dec", kRedDec}};
    switch (d.op) {
      case Op::ld:
      case Op::st:
      case Op::atom:
      case Op::red: {
        if (auto s = spaces.find(m); s != spaces.end()) {
          if ((d.op == Op::atom || d.op == Op::red) && s->second != Space::global && s->second != Space::shared) return false;
          d.space = s->second;
          return true;
        }
        if (auto s = scopes.find(m); s != scopes.end()) {
          d.scope = s->second;
          return true;
        }
        if (m == "relaxed" || m == "acquire" || m == "release" || m == "acq_rel" || m == "volatile" || m == "weak") {
          if (sem_seen) return false;
          sem_seen = true;
          d.sem = m == "relaxed" ? Sem::relaxed : m == "acquire" ? Sem::acquire : m == "release" ? Sem::release
                  : m == "acq_rel" ? Sem::acq_rel : m == "volatile" ? Sem::volatile_ : Sem::weak;
          if (d.op == Op::ld && (d.sem == Sem::release || d.sem == Sem::acq_rel)) return false;
          if (d.op == Op::st && (d.sem == Sem::acquire || d.sem == Sem::acq_rel)) return false;
          return true;
        }
        if (d.op == Op::ld || d.op == Op::st) {
          if (m == "v2" || m == "v4") {
            d.vec = m == "v2" ? 2 : 4;
            return true;
          }
          return m == "ca" || m == "cg" || m == "cs" || m == "lu" || m == "cv" || m == "nc" || m == "wb" || m == "wt";
        }
        if (auto r = rmw.find(m); r != rmw.end()) {
          d.mode = r->second;
          return true;
        }
        return m == "noftz";
      }
      case Op::mul:
      case Op::mad:
        if (m == "lo" || m == "hi" || m == "wide") {
          d.mode = m == "lo" ? kMulLo : m == "hi" ? kMulHi : kMulWide;
          return true;
        }
        return m == "rn" || m == "ftz" || m == "sat";
      case Op::add:
      case Op::sub:
      case Op::fma:
      case Op::div:
      case Op::min:
      case Op::max:
      case Op::abs:
      case Op::neg:
        if (m == "sat") {
          d.sat = true;
          return true;
        }
        return m == "rn" || m == "ftz" || m == "approx" || m == "full" || (m == "rz" && d.op != Op::div);
      case Op::cvt:
        if (m == "rn" || m == "rni") d.rnd = 1;
        else if (m == "rz" || m == "rzi") d.rnd = 2;
        else if (m == "rm" || m == "rmi") d.rnd = 3;
        else if (m == "rp" || m == "rpi") d.rnd = 4;
        else if (m == "sat") d.sat = true;
        else if (m != "ftz") return false;
        return true;
      case Op::cvta:
        if (m == "to") {
          d.to = true;
          return true;
        }
        if (m == "global" || m == "shared" || m == "local" || m == "param" || m == "const") {
          d.space = spaces.at(m);
          return d.space != Space::param && d.space != Space::const_ ? true : false;
        }
        return false;
      case Op::setp:
        if (auto c = cmps.find(m); c != cmps.end()) {
          d.mode = c->second;
          d.mode2 = (m == "lo" || m == "ls" || m == "hi" || m == "hs") ? 1 : 0;  // unsigned compare forced
          return true;
        }
        if (m == "and" || m == "or" || m == "xor") {
          d.rnd = m == "and" ? 1 : m == "or" ? 2 : 3;  // the combine
          return true;
        }
        return m == "ftz";
      case Op::bra:
      case Op::ret:
        return m == "uni";
      case Op::shfl:
        if (m == "sync") return true;
        if (m == "up" || m == "down" || m == "bfly" || m == "idx") {
          d.mode = m == "up" ? kShflUp : m == "down" ? kShflDown : m == "bfly" ? kShflBfly : kShflIdx;
          return true;
        }
        return false;
      case Op::vote:
        if (m == "sync") return true;
        if (m == "all" || m == "any" || m == "uni" || m == "ballot") {
          d.mode = m == "all" ? kVoteAll : m == "any" ? kVoteAny : m == "uni" ? kVoteUni : kVoteBallot;
          return true;
        }
        return false;
      case Op::match:
        if (m == "sync") return true;
        if (m == "any" || m == "all") {
          d.mode = m == "any" ? 0 : 1;
          return true;
        }
        return false;
      case Op::redux:
        if (m == "sync") return true;
        if (auto r = rmw.find(m); r != rmw.end() && r->second <= kRedXor) {
          d.mode = r->second;
          return true;
        }
        return false;
      case Op::bar:
        if (m == "sync" || m == "aligned") return true;
        if (m == "arrive") {
          d.mode = kBarArrive;
          return true;
        }
        if (m == "red") {
          d.mode = kBarRed;
          return true;
        }
        if (m == "popc" || m == "and" || m == "or") {
          d.mode2 = m == "popc" ? 0 : m == "and" ? 1 : 2;
          return true;
        }
        if (m == "warp") {
          d.op = Op::bar_warp;
          return true;
        }
        return false;
      case Op::bar_warp:
        return m == "sync";
      case Op::fence:
        if (in.base == "membar") {
          if (m == "cta") d.scope = Scope::cta;
          else if (m == "gl") d.scope = Scope::gpu;
          else if (m == "sys") d.scope = Scope::sys;
          else return false;
          return true;
        }
        if (m == "sc" || m == "acq_rel") return true;
        if (m == "acquire" || m == "release") {  // PTX 8.6: a one-sided fence
          d.mode = m == "acquire" ? 1 : 2;
          return true;
        }
        if (auto s = scopes.find(m); s != scopes.end()) {
          d.scope = s->second;
          return true;
        }
        return false;
      case Op::shf:
        if (m == "l" || m == "r") {
          d.mode = m == "l" ? 0 : 1;
          return true;
        }
        if (m == "wrap" || m == "clamp") {
          d.mode2 = m == "wrap" ? 0 : 1;
          return true;
        }
        return false;
      case Op::bfind:
        if (m == "shiftamt") {
          d.mode = 1;
          return true;
        }
        return false;
      case Op::prmt:
      case Op::bfe:
      case Op::bfi:
      case Op::trap:
      case Op::and_:
      case Op::or_:
      case Op::xor_:
      case Op::not_:
      case Op::cnot:
      case Op::shl:
      case Op::shr:
      case Op::selp:
      case Op::mov:
      case Op::rem:
      case Op::popc:
      case Op::clz:
      case Op::brev:
      case Op::activemask:
      case Op::nanosleep:
      case Op::exit:
        return false;
    }
    return false;
  }

  void finish(const Instr& in, Dec& d, int types) {
    auto need = [&](std::size_t n) {
      if (d.o.size() != n) unsupported(in, "expected " + std::to_string(n) + " operands");
    };
    auto need_reg = [&](std::size_t i) {
      if (i >= d.o.size() || (d.o[i].k != Opd::K::reg && d.o[i].k != Opd::K::sink))
        unsupported(in, "operand " + std::to_string(i + 1) + " is not a register");
    };
    switch (d.op) {
      case Op::ld:
      case Op::st: {
        need(2);
        const Opd& a = d.op == Op::ld ? d.o[1] : d.o[0];
        if (a.k != Opd::K::addr) unsupported(in, "the address is not [...]");
        if (a.has_sym && d.space == Space::generic) d.space = a.sym_space == Space::param ? Space::param : Space::generic;
        if (d.space == Space::param && d.op == Op::st) unsupported(in, "a store to .param is not modelled");
        if ((d.sem == Sem::relaxed || d.sem == Sem::acquire || d.sem == Sem::release) && d.scope == Scope::none)
          d.scope = Scope::sys;  // PTX: a missing scope is .sys for these
        if (d.sem == Sem::volatile_) d.scope = Scope::sys;
        if (types != 1) unsupported(in, "one type expected");
        {
          const Opd& v = d.op == Op::ld ? d.o[0] : d.o[1];
          if (d.vec > 1 && (v.k != Opd::K::vec || v.elems.size() != static_cast<std::size_t>(d.vec)))
            unsupported(in, "a .v" + std::to_string(d.vec) + " access needs " + std::to_string(d.vec) + " registers");
          if (d.vec == 1 && v.k == Opd::K::vec) unsupported(in, "a vector without .v2 or .v4");
          if (d.op == Op::ld && v.k != Opd::K::reg && v.k != Opd::K::vec && v.k != Opd::K::sink)
            unsupported(in, "a load into something not a register");
        }
        d.memory = d.space != Space::param;
        return;
      }
      case Op::atom:
      case Op::red:
        if (types != 1) unsupported(in, "one type expected");
        if (d.sem == Sem::weak) d.sem = Sem::relaxed;
        if (d.sem == Sem::volatile_) unsupported(in, "");
        if (d.scope == Scope::none) d.scope = Scope::gpu;
        need(d.op == Op::atom ? (d.mode == kRedCas ? 4u : 3u) : 2u);
        if (d.o[d.op == Op::atom ? 1 : 0].k != Opd::K::addr) unsupported(in, "the address is not [...]");
        if (d.t.k == 'f' && d.mode != kRedAdd && d.mode != kRedExch && d.mode != kRedMin && d.mode != kRedMax)
          unsupported(in, "");
        d.memory = true;
        return;
      case Op::fence:
        if (d.scope == Scope::none) unsupported(in, "a fence without a scope");
        if (in.base == "fence" && !in.has_mod("sc") && !in.has_mod("acq_rel") && !in.has_mod("acquire") &&
            !in.has_mod("release"))
          unsupported(in, "");
        d.memory = true;
        return;
      case Op::bra:
        if (d.o.size() != 1 || d.o[0].k != Opd::K::sym) unsupported(in, "an indirect branch");
        {
          const auto l = entry->labels.find(in.ops[0].name);
          if (l == entry->labels.end()) unsupported(in, "the label " + in.ops[0].name + " is not in the entry");
          d.target = l->second;
        }
        return;
      case Op::ret:
      case Op::exit:
        need(0);
        return;
      case Op::cvt:
        if (types != 2) unsupported(in, "cvt takes two types");
        need(2);
        need_reg(0);
        return;
      case Op::cvta:
        need(2);
        if (d.space == Space::generic) unsupported(in, "");
        return;
      case Op::setp:
        if (d.o.size() != 3 && d.o.size() != 4) unsupported(in, "");
        if (d.o.size() == 4 && d.rnd == 0) unsupported(in, "a fourth operand without .and/.or/.xor");
        return;
      case Op::selp:
        need(4);
        return;
      case Op::mul:
      case Op::mad:
        if (d.t.k == 'f') {
          d.mode = kMulLo;
        } else if (!in.has_mod("lo") && !in.has_mod("hi") && !in.has_mod("wide")) {
          unsupported(in, "an integer mul/mad needs .lo, .hi or .wide");
        }
        need(d.op == Op::mul ? 3u : 4u);
        return;
      case Op::fma:
        need(4);
        if (d.t.k != 'f') unsupported(in, "");
        return;
      case Op::shfl:
        if (!in.has_mod("sync")) unsupported(in, "shfl without .sync is not modelled (sm_70 and newer need .sync)");
        need(5);
        return;
      case Op::vote:
        if (!in.has_mod("sync")) unsupported(in, "vote without .sync is not modelled");
        need(3);
        return;
      case Op::match:
        need(3);
        return;
      case Op::redux:
        need(3);
        return;
      case Op::bar:
        if (in.base == "bar" && !in.has_mod("sync") && !in.has_mod("arrive") && !in.has_mod("red") && in.mods.size() == 0)
          d.mode = kBarSync;  // plain "bar" is bar.sync
        if (d.mode == kBarRed) {
          if (d.o.size() != 3 && d.o.size() != 4) unsupported(in, "");
        } else if (d.o.empty() || d.o.size() > 2) {
          unsupported(in, "");
        }
        if (d.mode == kBarArrive && d.o.size() != 2) unsupported(in, "bar.arrive needs a thread count");
        d.memory = true;
        return;
      case Op::bar_warp:
        need(1);
        d.memory = true;
        return;
      case Op::activemask:
        need(1);
        return;
      case Op::nanosleep:
        need(1);
        return;
      case Op::trap:
        need(0);
        return;
      case Op::prmt:
        need(4);
        if (d.t.bits != 32) unsupported(in, "");
        return;
      case Op::shf:
        need(4);
        if (!in.has_mod("l") && !in.has_mod("r")) unsupported(in, "");
        if (!in.has_mod("wrap") && !in.has_mod("clamp")) unsupported(in, "");
        return;
      case Op::bfe:
        need(4);
        return;
      case Op::bfi:
        need(5);
        return;
      case Op::bfind:
        need(2);
        return;
      case Op::mov: {
        need(2);
        for (const Opd* v : {&d.o[0], &d.o[1]}) {
          if (v->k != Opd::K::vec) continue;
          const std::size_t n = v->elems.size();
          if ((n != 2 && n != 4) || d.t.bits % static_cast<int>(n) != 0 || d.t.bits / static_cast<int>(n) < 8)
            unsupported(in, "a vector of " + std::to_string(n) + " parts in a ." + std::to_string(d.t.bits) + "-bit mov");
        }
        return;
      }
      case Op::abs:
      case Op::neg:
      case Op::not_:
      case Op::cnot:
      case Op::popc:
      case Op::clz:
      case Op::brev:
        need(2);
        return;
      default:
        need(3);  // add sub div rem min max and or xor shl shr
        return;
    }
  }

  // ---- registers and operands ---------------------------------------------------------------

  std::uint64_t& R(int t, int r) { return regs[static_cast<std::size_t>(t) * nregs + static_cast<std::size_t>(r)]; }

  std::uint64_t special(int t, Special s) const {
    const Thr& h = thr[static_cast<std::size_t>(t)];
    const std::uint32_t lane = static_cast<std::uint32_t>(h.lane);
    switch (s) {
      case Special::tid_x: return static_cast<std::uint64_t>(h.tid);
      case Special::ntid_x: return static_cast<std::uint64_t>(block);
      case Special::ctaid_x: return static_cast<std::uint64_t>(h.block);
      case Special::nctaid_x: return static_cast<std::uint64_t>(grid);
      case Special::tid_y: case Special::tid_z: case Special::ctaid_y: case Special::ctaid_z: return 0;
      case Special::ntid_y: case Special::ntid_z: case Special::nctaid_y: case Special::nctaid_z: return 1;
      case Special::laneid: return lane;
      case Special::warpid: return static_cast<std::uint64_t>(h.warp);
      case Special::nwarpid: return static_cast<std::uint64_t>((block + 31) / 32);
      case Special::clock: return steps & 0xffffffffull;
      case Special::clock64: return steps;
      case Special::globaltimer: return steps * 1000;
      case Special::lanemask_eq: return 1ull << lane;
      case Special::lanemask_lt: return (1ull << lane) - 1;
      case Special::lanemask_le: return (2ull << lane) - 1;
      case Special::lanemask_gt: return (~((2ull << lane) - 1)) & 0xffffffffull;
      case Special::lanemask_ge: return (~((1ull << lane) - 1)) & 0xffffffffull;
      case Special::smid: return static_cast<std::uint64_t>(h.block);
      case Special::nsmid: return static_cast<std::uint64_t>(grid);
    }
    return 0;
  }

  std::uint64_t get(int t, const Opd& o, Ty ty) {
    std::uint64_t v = 0;
    switch (o.k) {
      case Opd::K::reg: v = R(t, o.reg); break;
      case Opd::K::imm:
        v = static_cast<std::uint64_t>(o.imm);
        if (o.fl && ty.k == 'f' && ty.bits == 64 && (v >> 32) == 0) v = of_f64(static_cast<double>(as_f32(v)));
        if (o.fl && ty.k == 'f' && ty.bits == 32 && (v >> 32) != 0) v = of_f32(static_cast<float>(as_f64(v)));
        break;
      case Opd::K::special: v = special(t, o.special); break;
      case Opd::K::sym: v = o.sym_value; break;
      default: v = 0;
    }
    if (ty.k == 'p') v = v ? 1 : 0;
    v = ext(v, ty);
    if (o.neg) v = v ? 0 : 1;
    return v;
  }

  bool pred(int t, const Opd& o) { return get(t, o, Ty{'p', 1}) != 0; }

  void set(int t, const Opd& o, Ty ty, std::uint64_t v) {
    if (o.k == Opd::K::sink) return;
    if (o.k != Opd::K::reg) return;
    R(t, o.reg) = ty.k == 'p' ? (v ? 1 : 0) : (v & mask_bits(ty.bits));
  }

  // ---- memory ------------------------------------------------------------------------------

  struct Ref {
    std::uint8_t* p = nullptr;
    std::uint64_t key = 0;
    bool tracked = false;  // global or shared: watched by happens-before
    bool is_shared = false;
    std::uint64_t offset = 0;
  };

  std::string describe(std::uint64_t key, int blk) const {
    if (key & kSharedKeyBit) {
      const std::uint64_t off = key & 0xffffffffull;
      for (const auto& [name, v] : shared_vars)
        if (off >= v.offset && (off < v.offset + v.bytes || (v.bytes == 0 && name == dynamic_shared_name)))
          return source_name(name) + "+" + std::to_string(off - v.offset) + " (shared, block " + std::to_string(blk) + ")";
      return "shared+" + std::to_string(off) + " (block " + std::to_string(blk) + ")";
    }
    for (const auto& b : bufs)
      if (key >= b.base && key < b.base + b.data.size()) return b.name + "+" + std::to_string(key - b.base);
    return hex_addr(key);
  }

  static std::string hex_addr(std::uint64_t a) {
    static const char* d = "0123456789abcdef";
    std::string s;
    do {
      s.insert(s.begin(), d[a & 0xf]);
      a >>= 4;
    } while (a);
    return "0x" + s;
  }

  void oob(int t, std::size_t pc, const std::string& what) {
    Finding f;
    f.kind = "out-of-bounds";
    const Instr& in = (*src)[pc];
    const Thr& h = thr[static_cast<std::size_t>(t)];
    f.message = "thread " + std::to_string(h.tid) + " of block " + std::to_string(h.block) + " accesses " + what +
                " at " + to_string(in.loc) + " ('" + in.text + "'), outside every buffer";
    f.where = {in.loc};
    f.threads = {ThreadRef{h.block, h.tid}};
    f.address = what;
    f.ptx_lines = {in.line};
    add_fatal(std::move(f));
  }

  bool ref(int t, std::size_t pc, Space sp, std::uint64_t addr, std::uint64_t size, Ref& r) {
    const Thr& h = thr[static_cast<std::size_t>(t)];
    if (sp == Space::generic) {
      if (addr >= kSharedWindow && addr < kSharedWindow + kWindowSize) {
        sp = Space::shared;
        addr -= kSharedWindow;
      } else if (addr >= kLocalWindow && addr < kLocalWindow + kWindowSize) {
        sp = Space::local;
        addr -= kLocalWindow;
      } else {
        sp = Space::global;
      }
    }
    switch (sp) {
      case Space::const_:  // .const variables are buffers like .global ones (read-only by the ISA)
      case Space::global: {
        for (auto& b : bufs)
          if (addr >= b.base && size <= b.data.size() && addr - b.base <= b.data.size() - size) {
            r.p = b.data.data() + (addr - b.base);
            r.key = addr;
            r.tracked = true;
            return true;
          }
        oob(t, pc, "global address " + hex_addr(addr) + " (" + std::to_string(size) + " bytes)");
        return false;
      }
      case Space::shared: {
        auto& s = shared[static_cast<std::size_t>(h.block)];
        if (addr + size > s.size() || addr + size < addr) {
          oob(t, pc, "shared offset " + std::to_string(addr) + " (" + std::to_string(size) + " bytes; the block has " +
                         std::to_string(s.size()) + ")");
          return false;
        }
        r.p = s.data() + addr;
        r.key = kSharedKeyBit | (static_cast<std::uint64_t>(h.block) << 32) | addr;
        r.tracked = true;
        r.is_shared = true;
        r.offset = addr;
        return true;
      }
      case Space::local: {
        auto& l = local[static_cast<std::size_t>(t)];
        if (addr + size > l.size() || addr + size < addr) {
          oob(t, pc, "local offset " + std::to_string(addr) + " (" + std::to_string(size) + " bytes)");
          return false;
        }
        r.p = l.data() + addr;
        return true;
      }
      case Space::param: {
        if (size > param_bytes.size() || addr > param_bytes.size() - size) {
          oob(t, pc, "parameter offset " + std::to_string(addr));
          return false;
        }
        r.p = param_bytes.data() + addr;
        return true;
      }
      default:
        oob(t, pc, "address " + hex_addr(addr));
        return false;
    }
  }

  std::uint64_t load_bytes(const Ref& r, std::uint64_t size) const {
    std::uint64_t v = 0;
    std::memcpy(&v, r.p, size);
    return v;
  }
  void store_bytes(const Ref& r, std::uint64_t size, std::uint64_t v) { std::memcpy(r.p, &v, size); }

  // `reads`: the access reads the bytes (a load or an atomic), so unwritten shared bytes are reported.
  void race_check(int t, std::size_t pc, const Ref& r, std::uint64_t size, bool write, Scope scope, bool reads) {
    if (!r.tracked) return;
    if (r.is_shared && reads) {
      auto& w = shared_written[static_cast<std::size_t>(thr[static_cast<std::size_t>(t)].block)];
      bool all = true;
      for (std::uint64_t i = 0; i < size; ++i) all = all && w[r.offset + i];
      if (!all && uninit_reported.insert(static_cast<int>(pc)).second) {
        const Instr& in = (*src)[pc];
        const Thr& h = thr[static_cast<std::size_t>(t)];
        Finding f;
        f.kind = "uninitialised-shared";
        f.address = describe(r.key, h.block);
        f.message = "thread " + std::to_string(h.tid) + " of block " + std::to_string(h.block) + " reads " + f.address +
                    " at " + to_string(in.loc) + " before any thread wrote it";
        f.where = {in.loc};
        f.threads = {ThreadRef{h.block, h.tid}};
        f.ptx_lines = {in.line};
        add(std::move(f));
      }
    }
    if (r.is_shared && write) {
      auto& w = shared_written[static_cast<std::size_t>(thr[static_cast<std::size_t>(t)].block)];
      for (std::uint64_t i = 0; i < size; ++i) w[r.offset + i] = 1;
    }
    const auto race = hb->access(t, r.key, static_cast<std::uint32_t>(size), write, scope, static_cast<int>(pc));
    if (!race) return;
    const int a = race->earlier.instr, b = race->later.instr;
    if (!race_pairs.insert({std::min(a, b), std::max(a, b)}).second || race_pairs.size() > 16) return;
    const Instr& ia = (*src)[static_cast<std::size_t>(a)];
    const Instr& ib = (*src)[static_cast<std::size_t>(b)];
    const Thr& ta = thr[static_cast<std::size_t>(race->earlier.thread)];
    const Thr& tb = thr[static_cast<std::size_t>(race->later.thread)];
    Finding f;
    f.kind = "data-race";
    f.address = describe(race->byte, tb.block);
    auto what = [](const Access& x) { return std::string(x.write ? "writes" : "reads"); };
    f.message = "data race on " + f.address + ": thread " + std::to_string(ta.tid) + " of block " +
                std::to_string(ta.block) + " " + what(race->earlier) + " it at " + to_string(ia.loc) + " ('" + ia.text +
                "') and thread " + std::to_string(tb.tid) + " of block " + std::to_string(tb.block) + " " +
                what(race->later) + " it at " + to_string(ib.loc) + " ('" + ib.text +
                "'), and nothing orders the two (no barrier, no release/acquire of a scope that includes both)";
    f.where = {ia.loc, ib.loc};
    f.threads = {ThreadRef{ta.block, ta.tid}, ThreadRef{tb.block, tb.tid}};
    f.ptx_lines = {ia.line, ib.line};
    add(std::move(f));
  }

  void add(Finding f) {
    f.schedule = sched_name;
    f.message += " [schedule " + sched_name + "]";
    out.findings.push_back(std::move(f));
  }
  void add_fatal(Finding f) {
    add(std::move(f));
    fatal = true;
  }

  // ---- running -----------------------------------------------------------------------------

  void block_thread(int t, St st) {
    thr[static_cast<std::size_t>(t)].st = st;
    runnable.erase(t);
  }
  void wake(int t) {
    Thr& h = thr[static_cast<std::size_t>(t)];
    h.st = St::run;
    ++h.pc;
    runnable.insert(t);
  }

  int global_id(int blk, int tid) const { return blk * block + tid; }

  void exit_thread(int t) {
    Thr& h = thr[static_cast<std::size_t>(t)];
    h.st = St::exited;
    runnable.erase(t);
    ++exited_in_block[static_cast<std::size_t>(h.block)];
    // A lane waiting at a warp-synchronous instruction whose mask names this lane waits for ever.
    const int first = global_id(h.block, h.warp * 32);
    for (int l = 0; l < 32 && !fatal; ++l) {
      const int u = first + l;
      if (h.warp * 32 + l >= block) break;
      const Thr& o = thr[static_cast<std::size_t>(u)];
      if (o.st == St::warp_wait && ((o.wait_mask >> h.lane) & 1)) {
        const Instr& in = (*src)[o.pc];
        Finding f;
        f.kind = "warp-mask";
        f.message = "lane " + std::to_string(o.lane) + " of warp " + std::to_string(o.warp) + " (block " +
                    std::to_string(o.block) + ") waits at '" + in.text + "' (" + to_string(in.loc) +
                    ") with membermask " + hex32(o.wait_mask) + ", which names lane " + std::to_string(h.lane) +
                    ", but that lane exited without reaching it";
        f.where = {in.loc};
        f.threads = {ThreadRef{o.block, o.tid}, ThreadRef{h.block, h.tid}};
        f.ptx_lines = {in.line};
        add_fatal(std::move(f));
      }
    }
    for (int id = 0; id < 16 && !fatal; ++id) try_release(h.block, id);
  }

  void warp_mask_finding(int t, std::size_t pc, const std::string& why) {
    const Instr& in = (*src)[pc];
    const Thr& h = thr[static_cast<std::size_t>(t)];
    Finding f;
    f.kind = "warp-mask";
    f.message = "lane " + std::to_string(h.lane) + " of warp " + std::to_string(h.warp) + " (thread " +
                std::to_string(h.tid) + " of block " + std::to_string(h.block) + ") runs '" + in.text + "' at " +
                to_string(in.loc) + ": " + why;
    f.where = {in.loc};
    f.threads = {ThreadRef{h.block, h.tid}};
    f.ptx_lines = {in.line};
    add_fatal(std::move(f));
  }

  void arrive_warp(int t, const Dec& d) {
    Thr& h = thr[static_cast<std::size_t>(t)];
    const auto mask = static_cast<std::uint32_t>(get(t, d.o.back(), Ty{'b', 32}));
    if (!((mask >> h.lane) & 1)) {
      warp_mask_finding(t, h.pc, "its membermask " + hex32(mask) + " does not name lane " + std::to_string(h.lane) +
                                     " (the lanes of the mask must all call it, and only they)");
      return;
    }
    const int first = global_id(h.block, h.warp * 32);
    for (int l = 0; l < 32; ++l) {
      if (!((mask >> l) & 1)) continue;
      if (h.warp * 32 + l >= block) {
        warp_mask_finding(t, h.pc, "its membermask " + hex32(mask) + " names lane " + std::to_string(l) +
                                       ", which the block does not have");
        return;
      }
      if (thr[static_cast<std::size_t>(first + l)].st == St::exited) {
        warp_mask_finding(t, h.pc, "its membermask " + hex32(mask) + " names lane " + std::to_string(l) +
                                       ", which has exited");
        return;
      }
    }
    h.wait_mask = mask;
    block_thread(t, St::warp_wait);
    for (int l = 0; l < 32; ++l) {
      if (!((mask >> l) & 1)) continue;
      const Thr& o = thr[static_cast<std::size_t>(first + l)];
      if (o.st != St::warp_wait || o.wait_mask != mask) return;
      // The same instruction kind with the same qualifiers (any bar.warp.sync meets any other).
      if (code[o.pc].op != d.op) return;
      if (d.op != Op::bar_warp && (*src)[o.pc].mods != (*src)[h.pc].mods) return;
    }
    complete_warp(first, mask);
  }

  void complete_warp(int first, std::uint32_t mask) {
    std::vector<int> lanes;
    for (int l = 0; l < 32; ++l)
      if ((mask >> l) & 1) lanes.push_back(l);
    auto tid = [&](int l) { return first + l; };
    // Lanes may wait at different instructions with the same qualifiers and mask (sm_70 and newer):
    // each lane's operands are those of its own instruction.
    auto D = [&](int l) -> const Dec& { return code[thr[static_cast<std::size_t>(tid(l))].pc]; };
    const Dec& d = D(lanes[0]);
    switch (d.op) {
      case Op::shfl: {
        std::array<std::uint64_t, 32> a{};
        for (int l : lanes) a[static_cast<std::size_t>(l)] = get(tid(l), D(l).o[1], Ty{'b', 32});
        std::array<std::pair<std::uint64_t, bool>, 32> res{};
        for (int l : lanes) {
          const int t = tid(l);
          const auto bval = static_cast<std::uint32_t>(get(t, D(l).o[2], Ty{'b', 32})) & 0x1f;
          const auto c = static_cast<std::uint32_t>(get(t, D(l).o[3], Ty{'b', 32}));
          const std::uint32_t cval = c & 0x1f, seg = (c >> 8) & 0x1f;
          const auto lane = static_cast<std::uint32_t>(l);
          const std::uint32_t max_lane = (lane & seg) | (cval & ~seg);
          const std::uint32_t min_lane = lane & seg;
          int j = 0;
          bool p = false;
          switch (d.mode) {
            case kShflUp:
              j = static_cast<int>(lane) - static_cast<int>(bval);
              p = j >= static_cast<int>(max_lane);
              break;
            case kShflDown:
              j = static_cast<int>(lane + bval);
              p = j <= static_cast<int>(max_lane);
              break;
            case kShflBfly:
              j = static_cast<int>(lane ^ bval);
              p = j <= static_cast<int>(max_lane);
              break;
            default:
              j = static_cast<int>(min_lane | (bval & ~seg));
              p = j <= static_cast<int>(max_lane);
              break;
          }
          if (!p) j = l;
          if (!((mask >> j) & 1)) {
            warp_mask_finding(t, thr[static_cast<std::size_t>(t)].pc,
                              "it reads lane " + std::to_string(j) + ", which its membermask " + hex32(mask) +
                                  " leaves out (the value is undefined)");
            return;
          }
          res[static_cast<std::size_t>(l)] = {a[static_cast<std::size_t>(j)], p};
        }
        for (int l : lanes) {
          const int t = tid(l);
          const Opd& dst = D(l).o[0];
          if (dst.k == Opd::K::pair) {
            R(t, dst.reg) = res[static_cast<std::size_t>(l)].first & 0xffffffffull;
            R(t, dst.reg2) = res[static_cast<std::size_t>(l)].second ? 1 : 0;
          } else {
            set(t, dst, Ty{'b', 32}, res[static_cast<std::size_t>(l)].first);
          }
        }
        break;
      }
      case Op::vote: {
        std::uint32_t ballot = 0;
        for (int l : lanes)
          if (pred(tid(l), D(l).o[1])) ballot |= 1u << l;
        for (int l : lanes) {
          std::uint64_t r = 0;
          switch (d.mode) {
            case kVoteAll: r = ballot == mask; break;
            case kVoteAny: r = ballot != 0; break;
            case kVoteUni: r = ballot == 0 || ballot == mask; break;
            default: r = ballot; break;
          }
          set(tid(l), D(l).o[0], d.mode == kVoteBallot ? Ty{'b', 32} : Ty{'p', 1}, r);
        }
        break;
      }
      case Op::match: {
        for (int l : lanes) {
          const std::uint64_t mine = get(tid(l), D(l).o[1], d.t);
          std::uint32_t same = 0;
          bool all = true;
          for (int k : lanes) {
            if (get(tid(k), D(k).o[1], d.t) == mine)
              same |= 1u << k;
            else
              all = false;
          }
          const Opd& dst = D(l).o[0];
          std::uint64_t v = d.mode == 0 ? same : (all ? mask : 0);
          if (dst.k == Opd::K::pair) {
            R(tid(l), dst.reg) = v;
            R(tid(l), dst.reg2) = all ? 1 : 0;
          } else {
            set(tid(l), dst, Ty{'b', 32}, v);
          }
        }
        break;
      }
      case Op::redux: {
        const bool sgn = d.t.k == 's';
        std::int64_t acc = 0;
        bool firstv = true;
        for (int l : lanes) {
          const auto v = static_cast<std::int64_t>(sgn ? ext(get(tid(l), D(l).o[1], d.t), Ty{'s', 32})
                                                       : (get(tid(l), D(l).o[1], d.t) & 0xffffffffull));
          if (firstv) {
            acc = v;
            firstv = false;
            continue;
          }
          switch (d.mode) {
            case kRedAdd: acc += v; break;
            case kRedMin: acc = std::min(acc, v); break;
            case kRedMax: acc = std::max(acc, v); break;
            case kRedAnd: acc &= v; break;
            case kRedOr: acc |= v; break;
            default: acc ^= v; break;
          }
        }
        for (int l : lanes) set(tid(l), D(l).o[0], Ty{'b', 32}, static_cast<std::uint64_t>(acc));
        break;
      }
      case Op::bar_warp: {
        Clock acc;
        for (int l : lanes) hb->accumulate(acc, tid(l));
        for (int l : lanes) {
          hb->join_into(tid(l), acc);
          hb->tick(tid(l));
        }
        break;
      }
      default: break;
    }
    for (int l : lanes) wake(tid(l));
  }

  void arrive_barrier(int t, const Dec& d) {
    Thr& h = thr[static_cast<std::size_t>(t)];
    const std::size_t a = d.mode == kBarRed ? 1 : 0;
    const auto id = static_cast<int>(get(t, d.o[a], Ty{'u', 32}));
    if (id < 0 || id > 15) {
      Finding f;
      const Instr& in = (*src)[h.pc];
      f.kind = "out-of-bounds";
      f.message = "barrier id " + std::to_string(id) + " at " + to_string(in.loc) + " is outside 0-15";
      f.where = {in.loc};
      f.ptx_lines = {in.line};
      add_fatal(std::move(f));
      return;
    }
    int count = -1;
    const bool has_count = d.mode == kBarRed ? d.o.size() == 4 : d.o.size() == 2;
    if (has_count) count = static_cast<int>(get(t, d.o[a + 1], Ty{'u', 32}));
    Barrier& b = barriers[static_cast<std::size_t>(h.block)][static_cast<std::size_t>(id)];
    if (b.arrived > 0 && count != b.expected) {
      // The PTX ISA: every thread of a phase gives the same count (bar.sync with and without one,
      // bar.arrive's and bar.sync's alike). Hardware with two counts may release early or never.
      const Instr& first = (*src)[b.first_pc];
      const Instr& in = (*src)[h.pc];
      const auto said = [](int c) { return c < 0 ? std::string("no count (the whole block)") : std::to_string(c); };
      Finding f;
      f.kind = "barrier-count";
      f.message = "barrier " + std::to_string(id) + " of block " + std::to_string(h.block) + ": thread " +
                  std::to_string(b.first_thread % block) + " arrived with " + said(b.expected) + " at " +
                  to_string(first.loc) + " ('" + first.text + "'), thread " + std::to_string(h.tid) + " with " +
                  said(count) + " at " + to_string(in.loc) + " ('" + in.text +
                  "'): every arrival of one barrier gives the same thread count";
      f.where = {first.loc, in.loc};
      f.threads = {ThreadRef{h.block, b.first_thread % block}, ThreadRef{h.block, h.tid}};
      f.ptx_lines = {first.line, in.line};
      add_fatal(std::move(f));
      return;
    }
    if (b.arrived == 0) {
      b.expected = count;
      b.first_pc = h.pc;
      b.first_thread = t;
      b.red = d.mode2 == 1 ? 1u : 0u;
      b.red_kind = d.mode2;
      b.acc.clear();
    }
    hb->accumulate(b.acc, t);
    hb->tick(t);
    ++b.arrived;
    if (d.mode == kBarRed) {
      const bool p = pred(t, d.o.back());
      if (d.mode2 == 0) b.red += p ? 1u : 0u;
      if (d.mode2 == 1) b.red = (b.red && p) ? 1u : 0u;
      if (d.mode2 == 2) b.red = (b.red || p) ? 1u : 0u;
    }
    if (d.mode == kBarArrive) {
      ++h.pc;
    } else {
      h.bar_id = id;
      b.waiters.push_back(t);
      block_thread(t, St::bar_wait);
    }
    try_release(h.block, id);
  }

  void try_release(int blk, int id) {
    Barrier& b = barriers[static_cast<std::size_t>(blk)][static_cast<std::size_t>(id)];
    if (b.arrived == 0) return;
    const int exited = exited_in_block[static_cast<std::size_t>(blk)];
    if (b.expected > 0) {
      if (b.arrived < b.expected) return;
    } else {
      if (b.arrived < block - exited) return;
      if (exited > 0 && !b.waiters.empty()) {
        const int w = b.waiters.front();
        const Instr& in = (*src)[thr[static_cast<std::size_t>(w)].pc];
        std::vector<int> gone, there;
        for (int k = 0; k < block; ++k) {
          const Thr& o = thr[static_cast<std::size_t>(global_id(blk, k))];
          if (o.st == St::exited) gone.push_back(k);
          if (o.st == St::bar_wait && o.bar_id == id) there.push_back(k);
        }
        Finding f;
        f.kind = "barrier-divergence";
        f.message = "'" + in.text + "' at " + to_string(in.loc) + " waits for every thread of block " +
                    std::to_string(blk) + ", but threads " + ranges_of(gone) +
                    " exited without reaching it (threads " + ranges_of(there) +
                    " wait there): a __syncthreads() that not every thread reaches";
        f.where = {in.loc};
        f.threads = {ThreadRef{blk, there.empty() ? 0 : there.front()}, ThreadRef{blk, gone.front()}};
        f.ptx_lines = {in.line};
        add_fatal(std::move(f));
        return;
      }
    }
    const Clock acc = b.acc;
    const std::vector<int> waiters = b.waiters;
    const std::uint32_t red = b.red;
    const int kind = b.red_kind;
    b = Barrier{};
    for (int w : waiters) {
      hb->join_into(w, acc);
      const Dec& d = code[thr[static_cast<std::size_t>(w)].pc];
      if (d.mode == kBarRed) set(w, d.o[0], kind == 0 ? Ty{'u', 32} : Ty{'p', 1}, red);
      wake(w);
    }
  }

  std::uint64_t rmw(const Dec& d, std::uint64_t old, std::uint64_t b, std::uint64_t c) const {
    const Ty t = d.t;
    if (t.k == 'f') {
      if (t.bits == 32) {
        const float x = as_f32(old), y = as_f32(b);
        switch (d.mode) {
          case kRedAdd: return of_f32(x + y);
          case kRedExch: return b;
          case kRedMin: return of_f32(std::fmin(x, y));
          default: return of_f32(std::fmax(x, y));
        }
      }
      const double x = as_f64(old), y = as_f64(b);
      switch (d.mode) {
        case kRedAdd: return of_f64(x + y);
        case kRedExch: return b;
        case kRedMin: return of_f64(std::fmin(x, y));
        default: return of_f64(std::fmax(x, y));
      }
    }
    const std::uint64_t m = mask_bits(t.bits);
    const auto so = static_cast<std::int64_t>(ext(old, Ty{'s', t.bits}));
    const auto sb = static_cast<std::int64_t>(ext(b, Ty{'s', t.bits}));
    switch (d.mode) {
      case kRedAdd: return (old + b) & m;
      case kRedExch: return b & m;
      case kRedCas: return (old & m) == (b & m) ? (c & m) : (old & m);
      case kRedMin: return (t.k == 's' ? static_cast<std::uint64_t>(std::min(so, sb)) : std::min(old & m, b & m)) & m;
      case kRedMax: return (t.k == 's' ? static_cast<std::uint64_t>(std::max(so, sb)) : std::max(old & m, b & m)) & m;
      case kRedAnd: return old & b & m;
      case kRedOr: return (old | b) & m;
      case kRedXor: return (old ^ b) & m;
      case kRedInc: return (old & m) >= (b & m) ? 0 : ((old + 1) & m);
      case kRedDec: return ((old & m) == 0 || (old & m) > (b & m)) ? (b & m) : ((old - 1) & m);
      default: return old;
    }
  }

  static bool cmp_float(int op, double a, double b) {
    const bool un = std::isnan(a) || std::isnan(b);
    switch (op) {
      case kCmpEq: return !un && a == b;
      case kCmpNe: return !un && a != b;
      case kCmpLt: return !un && a < b;
      case kCmpLe: return !un && a <= b;
      case kCmpGt: return !un && a > b;
      case kCmpGe: return !un && a >= b;
      case kCmpEqu: return un || a == b;
      case kCmpNeu: return un || a != b;
      case kCmpLtu: return un || a < b;
      case kCmpLeu: return un || a <= b;
      case kCmpGtu: return un || a > b;
      case kCmpGeu: return un || a >= b;
      case kCmpNum: return !un;
      default: return un;
    }
  }

  static double round_mode(double x, int rnd) {
    switch (rnd) {
      case 1: return std::nearbyint(x);
      case 3: return std::floor(x);
      case 4: return std::ceil(x);
      default: return std::trunc(x);
    }
  }

  double fval(std::uint64_t v, Ty t) const { return t.bits == 32 ? static_cast<double>(as_f32(v)) : as_f64(v); }
  std::uint64_t fbits(double x, Ty t) const { return t.bits == 32 ? of_f32(static_cast<float>(x)) : of_f64(x); }

  std::uint64_t cvt(const Dec& d, std::uint64_t v) const {
    const Ty dt = d.t, st = d.t2;
    if (st.k == 'f' && dt.k == 'f') {
      double x = fval(v, st);
      if (d.rnd && dt.bits >= st.bits) x = round_mode(x, d.rnd);
      if (d.sat) x = std::isnan(x) ? 0.0 : std::clamp(x, 0.0, 1.0);
      return fbits(x, dt);
    }
    if (st.k == 'f') {  // float -> integer, saturating as PTX does
      const double x = fval(v, st);
      if (std::isnan(x)) return 0;
      const double r = round_mode(x, d.rnd ? d.rnd : 2);
      if (dt.k == 's') {
        const double lo = -std::ldexp(1.0, dt.bits - 1), hi = std::ldexp(1.0, dt.bits - 1) - 1;
        const double c = std::clamp(r, lo, hi);
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(c)) & mask_bits(dt.bits);
      }
      const double hi = std::ldexp(1.0, dt.bits) - 1;
      const double c = std::clamp(r, 0.0, hi);
      return c >= 18446744073709551615.0 ? ~0ull : static_cast<std::uint64_t>(c);
    }
    const std::uint64_t sv = ext(v, st);
    if (dt.k == 'f') {
      const double x = st.k == 's' ? static_cast<double>(static_cast<std::int64_t>(sv)) : static_cast<double>(sv);
      return fbits(x, dt);
    }
    if (d.sat) {
      const double x = st.k == 's' ? static_cast<double>(static_cast<std::int64_t>(sv)) : static_cast<double>(sv);
      const double lo = dt.k == 's' ? -std::ldexp(1.0, dt.bits - 1) : 0.0;
      const double hi = dt.k == 's' ? std::ldexp(1.0, dt.bits - 1) - 1 : std::ldexp(1.0, dt.bits) - 1;
      if (x < lo) return static_cast<std::uint64_t>(static_cast<std::int64_t>(lo)) & mask_bits(dt.bits);
      if (x > hi) return static_cast<std::uint64_t>(hi) & mask_bits(dt.bits);
    }
    return sv & mask_bits(dt.bits);
  }

  std::uint64_t arith(const Dec& d, int t) {
    const Ty ty = d.t;
    if (ty.k == 'f' && d.op != Op::and_ && d.op != Op::or_ && d.op != Op::xor_ && d.op != Op::not_) {
      const double a = fval(get(t, d.o[1], ty), ty);
      const double b = d.o.size() > 2 ? fval(get(t, d.o[2], ty), ty) : 0.0;
      const double c = d.o.size() > 3 ? fval(get(t, d.o[3], ty), ty) : 0.0;
      double r = 0;
      switch (d.op) {
        case Op::add: r = a + b; break;
        case Op::sub: r = a - b; break;
        case Op::mul: r = a * b; break;
        case Op::mad:
        case Op::fma: r = ty.bits == 32 ? static_cast<double>(std::fma(static_cast<float>(a), static_cast<float>(b), static_cast<float>(c))) : std::fma(a, b, c); break;
        case Op::div: r = a / b; break;
        case Op::min: r = std::fmin(a, b); break;
        case Op::max: r = std::fmax(a, b); break;
        case Op::abs: r = std::fabs(a); break;
        case Op::neg: r = -a; break;
        default: r = 0; break;
      }
      if (d.sat) r = std::isnan(r) ? 0.0 : std::clamp(r, 0.0, 1.0);
      return fbits(r, ty);
    }
    const Ty sty{ty.k == 's' ? 's' : 'u', ty.bits};
    const std::uint64_t a = get(t, d.o[1], sty);
    const std::uint64_t b = d.o.size() > 2 ? get(t, d.o[2], d.op == Op::shl || d.op == Op::shr ? Ty{'u', 32} : sty) : 0;
    const std::uint64_t m = mask_bits(ty.bits);
    const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
    const bool sgn = ty.k == 's';
    switch (d.op) {
      case Op::add: {
        if (d.sat && sgn) {
          const std::int64_t r = sa + sb;
          return static_cast<std::uint64_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)) & m;
        }
        return (a + b) & m;
      }
      case Op::sub: return (a - b) & m;
      case Op::mul:
      case Op::mad: {
        std::uint64_t r = 0;
        if (d.mode == kMulLo) {
          r = a * b;
        } else if (d.mode == kMulWide) {
          r = a * b;  // a, b extended to 64 bits by type: exact for 32-bit operands
        } else {
          if (ty.bits == 64) {
            r = sgn ? mul_hi_s64(sa, sb) : mul_hi_u64(a, b);
          } else {
            r = sgn ? static_cast<std::uint64_t>((sa * sb) >> ty.bits) : (a * b) >> ty.bits;
          }
        }
        const Ty rt{sty.k, d.mode == kMulWide ? ty.bits * 2 : ty.bits};
        if (d.op == Op::mad) r += get(t, d.o[3], rt);
        return r & mask_bits(rt.bits);
      }
      case Op::div:
        if ((b & m) == 0) return m;  // PTX leaves it unspecified; the GPU returns all ones
        if (sgn && sb == -1) return (0 - a) & m;
        return (sgn ? static_cast<std::uint64_t>(sa / sb) : a / b) & m;
      case Op::rem:
        if ((b & m) == 0) return a & m;
        if (sgn && sb == -1) return 0;
        return (sgn ? static_cast<std::uint64_t>(sa % sb) : a % b) & m;
      case Op::min: return (sgn ? static_cast<std::uint64_t>(std::min(sa, sb)) : std::min(a, b)) & m;
      case Op::max: return (sgn ? static_cast<std::uint64_t>(std::max(sa, sb)) : std::max(a, b)) & m;
      case Op::abs: return static_cast<std::uint64_t>(sa < 0 ? -sa : sa) & m;
      case Op::neg: return (0 - a) & m;
      case Op::and_: return (a & b) & m;
      case Op::or_: return (a | b) & m;
      case Op::xor_: return (a ^ b) & m;
      case Op::not_: return ty.k == 'p' ? (a ? 0 : 1) : (~a & m);
      case Op::cnot: return (a & m) == 0 ? 1 : 0;
      case Op::shl: return b >= static_cast<std::uint64_t>(ty.bits) ? 0 : (a << b) & m;
      case Op::shr:
        if (sgn) return static_cast<std::uint64_t>(sa >> std::min<std::uint64_t>(b, 63)) & m;
        return b >= static_cast<std::uint64_t>(ty.bits) ? 0 : ((a & m) >> b);
      case Op::popc: return static_cast<std::uint64_t>(__builtin_popcountll(a & m));
      case Op::clz: return (a & m) == 0 ? static_cast<std::uint64_t>(ty.bits)
                                        : static_cast<std::uint64_t>(__builtin_clzll(a & m) - (64 - ty.bits));
      case Op::brev: {
        std::uint64_t r = 0;
        for (int i = 0; i < ty.bits; ++i)
          if ((a >> i) & 1) r |= 1ull << (ty.bits - 1 - i);
        return r;
      }
      default: return 0;
    }
  }

  // prmt (default mode), shf, bfe, bfi as the PTX ISA defines them.
  std::uint64_t bits_op(const Dec& d, int t) {
    const int w = d.t.bits;
    const std::uint64_t m = mask_bits(w);
    switch (d.op) {
      case Op::prmt: {
        // prmt.b32 d, a, b, c: bytes {b, a} = b7..b4 a3..a0; each nibble of c picks one (bit 3: its sign).
        const std::uint64_t a = get(t, d.o[1], Ty{'b', 32}), b = get(t, d.o[2], Ty{'b', 32});
        const std::uint64_t c = get(t, d.o[3], Ty{'b', 32});
        const std::uint64_t both = (b << 32) | a;
        std::uint64_t r = 0;
        for (int i = 0; i < 4; ++i) {
          const std::uint64_t sel = (c >> (4 * i)) & 0xf;
          std::uint64_t byte = (both >> (8 * (sel & 7))) & 0xff;
          if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
          r |= byte << (8 * i);
        }
        return r;
      }
      case Op::shf: {
        // shf.l: the upper 32 bits of {b:a} << n; shf.r: the lower 32 bits of {b:a} >> n.
        const std::uint64_t a = get(t, d.o[1], Ty{'b', 32}), b = get(t, d.o[2], Ty{'b', 32});
        const std::uint64_t c = get(t, d.o[3], Ty{'u', 32});
        const std::uint64_t n = d.mode2 == 0 ? (c & 31) : std::min<std::uint64_t>(c, 32);
        const std::uint64_t both = (b << 32) | a;
        return d.mode == 0 ? (n == 0 ? b : ((both << n) >> 32) & 0xffffffffull) : ((both >> n) & 0xffffffffull);
      }
      case Op::bfe: {
        const std::uint64_t a = get(t, d.o[1], Ty{'u', w});
        const std::uint64_t pos = get(t, d.o[2], Ty{'u', 32}) & 0xff, len = get(t, d.o[3], Ty{'u', 32}) & 0xff;
        const auto msb = static_cast<std::uint64_t>(w - 1);
        const bool sbit = d.t.k == 's' && len > 0 && ((a >> std::min(pos + len - 1, msb)) & 1);
        std::uint64_t r = 0;
        for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(w); ++i) {
          const bool bit = (i < len && pos + i <= msb) ? ((a >> (pos + i)) & 1) != 0 : sbit;
          if (bit) r |= 1ull << i;
        }
        return r & m;
      }
      case Op::bfi: {
        const std::uint64_t a = get(t, d.o[1], Ty{'b', w}), b = get(t, d.o[2], Ty{'b', w});
        const std::uint64_t pos = get(t, d.o[3], Ty{'u', 32}) & 0xff, len = get(t, d.o[4], Ty{'u', 32}) & 0xff;
        std::uint64_t r = b;
        for (std::uint64_t i = 0; i < len && pos + i < static_cast<std::uint64_t>(w); ++i) {
          const std::uint64_t bit = 1ull << (pos + i);
          r = ((a >> i) & 1) ? (r | bit) : (r & ~bit);
        }
        return r & m;
      }
      case Op::bfind: {
        // The most significant bit that is not a sign bit; .shiftamt: the left shift that brings it
        // to the top. None: 0xffffffff.
        std::uint64_t a = get(t, d.o[1], Ty{'u', w});
        if (d.t.k == 's' && ((a >> (w - 1)) & 1)) a = ~a & m;
        if (a == 0) return 0xffffffffull;
        std::uint64_t pos = 63 - static_cast<std::uint64_t>(__builtin_clzll(a));
        return d.mode == 1 ? static_cast<std::uint64_t>(w - 1) - pos : pos;
      }
      default: return 0;
    }
  }

  Scope strong_scope(const Dec& d) const {
    if (d.sem == Sem::weak) return Scope::none;
    return d.scope == Scope::none ? Scope::sys : d.scope;
  }

  std::uint64_t address_of(int t, const Opd& a) {
    std::uint64_t base = 0;
    if (a.reg >= 0) base = R(t, a.reg);
    else if (a.has_sym) base = a.sym_value;
    return base + static_cast<std::uint64_t>(a.imm);
  }

  void mem_op(int t, const Dec& d) {
    Thr& h = thr[static_cast<std::size_t>(t)];
    const std::size_t pc = h.pc;
    const bool is_ld = d.op == Op::ld;
    const Opd& a = is_ld ? d.o[1] : d.o[0];
    const Opd& v = is_ld ? d.o[0] : d.o[1];
    const std::uint64_t elem = static_cast<std::uint64_t>(d.t.bits == 1 ? 1 : d.t.bits / 8);
    const std::uint64_t size = elem * static_cast<std::uint64_t>(d.vec);
    Space sp = d.space;
    if (a.has_sym && a.reg < 0 && sp == Space::generic) sp = a.sym_space;
    std::uint64_t addr = address_of(t, a);
    if (a.has_sym && a.reg < 0 && sp == Space::generic) sp = a.sym_space;
    Ref r;
    if (!ref(t, pc, sp, addr, size, r)) return;
    const Scope sc = strong_scope(d);
    accessed = r.tracked;
    race_check(t, pc, r, size, !is_ld, sc, is_ld);
    const Ty et = d.t;
    for (int i = 0; i < d.vec; ++i) {
      const Opd& dst = v.k == Opd::K::vec ? v.elems[static_cast<std::size_t>(i)] : v;
      Ref e = r;
      e.p += static_cast<std::uint64_t>(i) * elem;
      if (is_ld) {
        set(t, dst, Ty{et.k == 'f' ? 'b' : et.k, et.bits}, ext(load_bytes(e, elem), et));
      } else {
        store_bytes(e, elem, get(t, dst, et));
      }
    }
    if (!r.tracked) return;
    if (is_ld) {
      if (sc != Scope::none) hb->strong_read(t, r.key, sc, d.sem == Sem::acquire);
    } else {
      if (sc != Scope::none)
        hb->strong_write(t, r.key, sc, d.sem == Sem::release, false);
      else
        hb->weak_write(r.key);
    }
  }

  void atom_op(int t, const Dec& d) {
    Thr& h = thr[static_cast<std::size_t>(t)];
    const std::size_t pc = h.pc;
    const bool has_dst = d.op == Op::atom;
    const Opd& a = d.o[has_dst ? 1 : 0];
    const std::uint64_t size = static_cast<std::uint64_t>(d.t.bits / 8);
    Space sp = d.space;
    if (a.has_sym && a.reg < 0 && sp == Space::generic) sp = a.sym_space;
    Ref r;
    if (!ref(t, pc, sp, address_of(t, a), size, r)) return;
    accessed = true;
    const bool acq = d.sem == Sem::acquire || d.sem == Sem::acq_rel;
    const bool rel = d.sem == Sem::release || d.sem == Sem::acq_rel;
    if (r.tracked) hb->strong_read(t, r.key, d.scope, acq);
    race_check(t, pc, r, size, true, d.scope, true);
    const std::uint64_t old = load_bytes(r, size);
    const std::size_t bi = has_dst ? 2 : 1;
    const std::uint64_t b = get(t, d.o[bi], d.t);
    const std::uint64_t c = d.mode == kRedCas ? get(t, d.o[bi + 1], d.t) : 0;
    store_bytes(r, size, rmw(d, old, b, c));
    if (has_dst) set(t, d.o[0], d.t, old);
    if (r.tracked) hb->strong_write(t, r.key, d.scope, rel, true);
  }

  bool step(int t) {
    Thr& h = thr[static_cast<std::size_t>(t)];
    ++steps;
    if (h.pc >= code.size()) {
      exit_thread(t);
      return false;
    }
    const Dec& d = code[h.pc];
    if (d.guard >= 0) {
      const bool g = R(t, d.guard) != 0;
      if (g == d.guard_neg) {
        ++h.pc;
        return true;
      }
    }
    switch (d.op) {
      case Op::ld:
      case Op::st:
        mem_op(t, d);
        if (!fatal) ++h.pc;
        return true;
      case Op::atom:
      case Op::red:
        atom_op(t, d);
        if (!fatal) ++h.pc;
        return true;
      case Op::fence:
        hb->fence(t, d.scope, d.mode != 2, d.mode != 1);
        accessed = true;
        ++h.pc;
        return true;
      case Op::mov: {
        const Opd& dst = d.o[0];
        const Opd& s = d.o[1];
        if (dst.k == Opd::K::vec) {  // unpack
          const std::uint64_t v = get(t, s, d.t);
          const int n = static_cast<int>(dst.elems.size());
          const int w = d.t.bits / n;
          for (int i = 0; i < n; ++i) set(t, dst.elems[static_cast<std::size_t>(i)], Ty{'b', w}, v >> (i * w));
        } else if (s.k == Opd::K::vec) {  // pack
          const int n = static_cast<int>(s.elems.size());
          const int w = d.t.bits / n;
          std::uint64_t v = 0;
          for (int i = 0; i < n; ++i) v |= (get(t, s.elems[static_cast<std::size_t>(i)], Ty{'b', w}) & mask_bits(w)) << (i * w);
          set(t, dst, d.t, v);
        } else {
          set(t, dst, d.t, get(t, s, d.t));
        }
        ++h.pc;
        return true;
      }
      case Op::selp:
        set(t, d.o[0], d.t, pred(t, d.o[3]) ? get(t, d.o[1], d.t) : get(t, d.o[2], d.t));
        ++h.pc;
        return true;
      case Op::setp: {
        bool r = false;
        if (d.t.k == 'f') {
          r = cmp_float(d.mode, fval(get(t, d.o[1], d.t), d.t), fval(get(t, d.o[2], d.t), d.t));
        } else {
          const bool sgn = d.t.k == 's' && d.mode2 == 0;
          const std::uint64_t a = get(t, d.o[1], d.t), b = get(t, d.o[2], d.t);
          const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
          switch (d.mode) {
            case kCmpEq: r = a == b; break;
            case kCmpNe: r = a != b; break;
            case kCmpLt: r = sgn ? sa < sb : a < b; break;
            case kCmpLe: r = sgn ? sa <= sb : a <= b; break;
            case kCmpGt: r = sgn ? sa > sb : a > b; break;
            case kCmpGe: r = sgn ? sa >= sb : a >= b; break;
            default: r = false; break;
          }
        }
        bool q = !r;
        if (d.o.size() == 4) {
          const bool c = pred(t, d.o[3]);
          auto combine = [&](bool x) { return d.rnd == 1 ? (x && c) : d.rnd == 2 ? (x || c) : (x != c); };
          r = combine(r);
          q = combine(q);
        }
        const Opd& dst = d.o[0];
        if (dst.k == Opd::K::pair) {
          R(t, dst.reg) = r ? 1 : 0;
          R(t, dst.reg2) = q ? 1 : 0;
        } else {
          set(t, dst, Ty{'p', 1}, r);
        }
        ++h.pc;
        return true;
      }
      case Op::cvt:
        set(t, d.o[0], d.t, cvt(d, get(t, d.o[1], Ty{d.t2.k == 'f' ? 'b' : d.t2.k, d.t2.bits})));
        ++h.pc;
        return true;
      case Op::cvta: {
        std::uint64_t v = get(t, d.o[1], Ty{'u', d.t.bits});
        const std::uint64_t window = d.space == Space::shared ? kSharedWindow : d.space == Space::local ? kLocalWindow : 0;
        v = d.to ? v - window : v + window;
        set(t, d.o[0], d.t, v);
        ++h.pc;
        return true;
      }
      case Op::bra:
        h.pc = d.target;
        return true;
      case Op::ret:
      case Op::exit:
        exit_thread(t);
        return false;
      case Op::shfl:
      case Op::vote:
      case Op::match:
      case Op::redux:
      case Op::bar_warp:
        arrive_warp(t, d);
        return false;
      case Op::bar:
        arrive_barrier(t, d);
        return h.st == St::run;
      case Op::activemask: {
        std::uint32_t m = 0;
        const int first = global_id(h.block, h.warp * 32);
        for (int l = 0; l < 32 && h.warp * 32 + l < block; ++l)
          if (thr[static_cast<std::size_t>(first + l)].st != St::exited) m |= 1u << l;
        set(t, d.o[0], Ty{'b', 32}, m);
        ++h.pc;
        return true;
      }
      case Op::nanosleep:
        yielded = true;
        ++h.pc;
        return true;
      case Op::trap: {
        const Instr& in = (*src)[h.pc];
        Finding f;
        f.kind = "trap";
        f.message = "thread " + std::to_string(h.tid) + " of block " + std::to_string(h.block) + " ran 'trap' at " +
                    to_string(in.loc) + " (a __trap(), or an assert that failed): the kernel stops there";
        f.where = {in.loc};
        f.threads = {ThreadRef{h.block, h.tid}};
        f.ptx_lines = {in.line};
        add_fatal(std::move(f));
        return false;
      }
      case Op::prmt:
      case Op::shf:
      case Op::bfe:
      case Op::bfi:
        set(t, d.o[0], d.t, bits_op(d, t));
        ++h.pc;
        return true;
      case Op::bfind:
        set(t, d.o[0], Ty{'u', 32}, bits_op(d, t));
        ++h.pc;
        return true;
      default: {
        const bool wide = (d.op == Op::mul || d.op == Op::mad) && d.mode == kMulWide;
        set(t, d.o[0], wide ? Ty{d.t.k, d.t.bits * 2} : d.t, arith(d, t));
        ++h.pc;
        return true;
      }
    }
  }

  void unfinished_finding(const std::string& kind) {
    std::map<std::pair<std::size_t, int>, std::vector<int>> groups;  // (pc, state) -> linear threads
    for (int t = 0; t < threads; ++t) {
      const Thr& h = thr[static_cast<std::size_t>(t)];
      if (h.st == St::exited) continue;
      groups[{h.pc, static_cast<int>(h.st)}].push_back(t);
    }
    Finding f;
    f.kind = kind;
    f.message = kind == "deadlock" ? "deadlock: no thread can move." : "the kernel did not finish in " +
                                                                         std::to_string(limits.max_steps) +
                                                                         " steps (a spin that never ends?).";
    int shown = 0;
    for (const auto& [key, ts] : groups) {
      const std::size_t pc = key.first;
      const auto st = static_cast<St>(key.second);
      const Instr& in = (*src)[std::min(pc, src->size() - 1)];
      std::map<int, std::vector<int>> by_block;
      for (int t : ts) by_block[t / block].push_back(t % block);
      std::string who;
      for (const auto& [b, list] : by_block) {
        if (!who.empty()) who += "; ";
        who += "block " + std::to_string(b) + " threads " + ranges_of(list);
      }
      std::string what = st == St::bar_wait    ? "wait at the barrier '" + in.text + "'"
                         : st == St::warp_wait ? "wait for their warp at '" + in.text + "' (membermask " +
                                                     hex32(thr[static_cast<std::size_t>(ts[0])].wait_mask) + ")"
                                               : "are at '" + in.text + "'";
      if (shown++ < 8) f.message += " " + std::to_string(ts.size()) + " thread(s) " + what + " at " + to_string(in.loc) + " (" + who + ").";
      f.where.push_back(in.loc);
      f.threads.push_back(ThreadRef{ts[0] / block, ts[0] % block});
      f.ptx_lines.push_back(in.line);
    }
    add_fatal(std::move(f));
  }

  Outcome run(const Schedule& s) {
    if (ran) throw Error("limit", 0, "a Machine runs once");
    ran = true;
    out = Outcome{};
    sched_name = s.name();
    out.schedule = sched_name;
    const int per_gpu = (grid + gpus - 1) / gpus;  // blocks of one GPU
    hb = std::make_unique<HappensBefore>(threads, block, per_gpu * block);
    nregs = std::max<std::size_t>(reg_index.size(), 1);
    regs.assign(nregs * static_cast<std::size_t>(threads), 0);
    thr.assign(static_cast<std::size_t>(threads), Thr{});
    for (int t = 0; t < threads; ++t) {
      Thr& h = thr[static_cast<std::size_t>(t)];
      h.block = t / block;
      h.tid = t % block;
      h.lane = h.tid % 32;
      h.warp = h.tid / 32;
    }
    const std::uint64_t shared_total = shared_bytes + dynamic_shared;
    shared.assign(static_cast<std::size_t>(grid), std::vector<std::uint8_t>(shared_total, 0));
    shared_written.assign(static_cast<std::size_t>(grid), std::vector<std::uint8_t>(shared_total, 0));
    local.assign(static_cast<std::size_t>(threads), std::vector<std::uint8_t>(local_bytes, 0));
    barriers.assign(static_cast<std::size_t>(grid), {});
    exited_in_block.assign(static_cast<std::size_t>(grid), 0);
    runnable.reset(threads);
    for (int t = 0; t < threads; ++t) runnable.insert(t);
    Scheduler sched(s, threads, block);
    while (!fatal) {
      if (runnable.empty()) {
        bool all = true;
        for (const auto& h : thr) all = all && h.st == St::exited;
        if (all) {
          out.finished = true;
        } else {
          unfinished_finding("deadlock");
        }
        break;
      }
      if (steps >= limits.max_steps) {
        unfinished_finding("step-limit");
        break;
      }
      const Scheduler::Turn turn = sched.pick(runnable);
      for (int k = 0; k < turn.budget && !fatal; ++k) {
        accessed = false;
        yielded = false;
        if (!step(turn.thread)) break;
        if (thr[static_cast<std::size_t>(turn.thread)].st != St::run || yielded) break;
        if (turn.stop_after_access && accessed) break;
        if (steps >= limits.max_steps) break;
      }
    }
    out.steps = steps;
    for (int i = 0; i < caller_bufs; ++i) out.buffers.push_back(bufs[static_cast<std::size_t>(i)].data);
    return std::move(out);
  }
};

Machine::Machine(const Program& program, const std::string& entry, int grid, int block, Limits limits)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.entry = entry.empty() ? (program.entries.empty() ? nullptr : &program.entries.front()) : program.find(entry);
  if (!m.entry) throw Error("malformed", 0, entry.empty() ? "the PTX has no .entry" : "the PTX has no .entry " + entry);
  if (grid <= 0 || block <= 0) throw Error("limit", 0, "a launch needs at least one block of one thread");
  if (block > 1024) throw Error("limit", 0, "a block has at most 1024 threads; this one has " + std::to_string(block));
  const std::int64_t threads = static_cast<std::int64_t>(grid) * block;
  if (threads > limits.max_threads || threads > kMaxModelThreads)
    throw Error("limit", 0,
                "the model runs at most " + std::to_string(std::min(limits.max_threads, kMaxModelThreads)) +
                    " threads; this launch has " + std::to_string(threads) + " (" + std::to_string(grid) + " x " +
                    std::to_string(block) + ")");
  m.grid = grid;
  m.block = block;
  m.threads = static_cast<int>(threads);
  m.limits = limits;
  m.layout(program);
  m.src = &m.entry->code;
  // A call is named first: the .param traffic around it would otherwise be refused before it.
  for (const auto& in : m.entry->code)
    if (in.base == "call")
      m.unsupported(in, "calls to functions that are not inlined (printf, a __noinline__ function) are not modelled");
  m.code.reserve(m.entry->code.size());
  for (const auto& in : m.entry->code) m.code.push_back(m.decode(in));
}

Machine::~Machine() = default;

std::uint64_t Machine::add_buffer(std::vector<std::uint8_t> bytes, std::string name) {
  Impl& m = *impl_;
  // Caller buffers come first in bufs (module variables are moved behind them).
  std::vector<GlobalBuf> module(m.bufs.begin() + m.caller_bufs, m.bufs.end());
  m.bufs.resize(static_cast<std::size_t>(m.caller_bufs));
  const std::uint64_t a = m.alloc_global(std::move(bytes), std::move(name));
  ++m.caller_bufs;
  for (auto& b : module) m.bufs.push_back(std::move(b));
  return a;
}

void Machine::set_params(std::vector<std::uint64_t> values) {
  Impl& m = *impl_;
  if (values.size() != m.params.size())
    throw Error("limit", 0, "the entry " + m.entry->name + " takes " + std::to_string(m.params.size()) +
                                " parameters; " + std::to_string(values.size()) + " given");
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Param& p = m.params[i];
    const std::uint64_t n = std::min<std::uint64_t>(p.bytes, 8);
    std::memcpy(m.param_bytes.data() + p.offset, &values[i], n);
  }
}

void Machine::set_dynamic_shared(std::uint64_t bytes) { impl_->dynamic_shared = bytes; }

void Machine::set_gpus(int gpus) {
  if (gpus < 1 || gpus > impl_->grid) throw Error("limit", 0, "a launch spreads its blocks over 1.." +
                                                               std::to_string(impl_->grid) + " GPUs");
  impl_->gpus = gpus;
}

Outcome Machine::run(const Schedule& schedule) {
  Impl& m = *impl_;
  std::uint64_t memory = 0;
  for (const auto& b : m.bufs) memory += b.data.size();
  memory += (m.shared_bytes + m.dynamic_shared) * static_cast<std::uint64_t>(m.grid);
  memory += m.local_bytes * static_cast<std::uint64_t>(m.threads);
  if (memory > m.limits.max_memory)
    throw Error("limit", 0, "the launch needs " + std::to_string(memory) + " bytes of model memory; the bound is " +
                                std::to_string(m.limits.max_memory));
  return m.run(schedule);
}

std::vector<std::uint8_t> Machine::buffer(int index) const {
  return impl_->bufs.at(static_cast<std::size_t>(index)).data;
}

const Finding* Outcome::first(const std::string& kind) const {
  for (const auto& f : findings)
    if (f.kind == kind) return &f;
  return nullptr;
}

Outcome run_kernel(const Program& program, const Launch& launch, const Schedule& schedule) {
  try {
    Machine m(program, launch.entry, launch.grid, launch.block, launch.limits);
    std::vector<std::uint64_t> addresses;
    for (const auto& b : launch.buffers) addresses.push_back(m.add_buffer(b.bytes, b.name));
    std::vector<std::uint64_t> values;
    for (const auto& a : launch.args) {
      if (a.is_buffer) {
        if (a.buffer < 0 || static_cast<std::size_t>(a.buffer) >= addresses.size())
          throw Error("limit", 0, "an argument names buffer " + std::to_string(a.buffer) + ", which the launch does not have");
        values.push_back(addresses[static_cast<std::size_t>(a.buffer)]);
      } else {
        values.push_back(a.value);
      }
    }
    m.set_params(values);
    m.set_dynamic_shared(launch.dynamic_shared);
    m.set_gpus(launch.gpus);
    return m.run(schedule);
  } catch (const Error& e) {
    Outcome o;
    o.schedule = schedule.name();
    Finding f;
    f.kind = e.kind();
    f.message = e.what();
    if (e.line() > 0) f.ptx_lines = {e.line()};
    f.schedule = o.schedule;
    o.findings.push_back(std::move(f));
    for (const auto& b : launch.buffers) o.buffers.push_back(b.bytes);
    return o;
  }
}

Outcome check_schedules(const Program& program, const Launch& launch, const std::vector<Schedule>& schedules) {
  Outcome last;
  for (const auto& s : schedules) {
    last = run_kernel(program, launch, s);
    if (!last.findings.empty()) return last;
  }
  return last;
}

std::vector<Schedule> hunting_schedules(const Launch& launch, std::uint64_t seed, int random_runs) {
  std::vector<Schedule> s = {Schedule::round_robin(), Schedule::reverse(), Schedule::one_ahead(0),
                             Schedule::one_ahead(launch.grid * launch.block - 1), Schedule::one_ahead(0, true),
                             Schedule::switch_every_access(seed)};
  for (int i = 0; i < random_runs; ++i) s.push_back(Schedule::seeded_random(seed + static_cast<std::uint64_t>(i)));
  return s;
}

std::vector<std::uint8_t> bytes_of(const std::vector<std::int32_t>& v) {
  std::vector<std::uint8_t> b(v.size() * 4);
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<std::int32_t> ints_of(const std::vector<std::uint8_t>& b) {
  std::vector<std::int32_t> v(b.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

}  // namespace cudasync::ptx
