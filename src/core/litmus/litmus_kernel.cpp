#include "core/litmus/litmus_kernel.hpp"

#include <functional>
#include <set>
#include <sstream>

namespace cudasync::litmus {

namespace {

std::string u32(long long v) { return std::to_string(static_cast<std::uint32_t>(v)) + "u"; }

std::string operand(const Operand& o) { return o.is_reg ? "r_" + o.reg : u32(o.value); }

std::string scoped(const Instr& in) {
  return std::string(".") + to_string(in.sem) + "." + to_string(in.scope);
}

const char* rmw_name(RmwOp op) {
  switch (op) {
    case RmwOp::add:
    case RmwOp::sub: return "add.u32";
    case RmwOp::exch: return "exch.b32";
    case RmwOp::cas: return "cas.b32";
    case RmwOp::max: return "max.u32";
    case RmwOp::min: return "min.u32";
    case RmwOp::and_: return "and.b32";
    case RmwOp::or_: return "or.b32";
    case RmwOp::xor_: return "xor.b32";
    case RmwOp::inc: return "inc.u32";
    case RmwOp::mul: break;
  }
  return "add.u32";
}

std::string alu(const Instr& in) {
  const std::string a = operand(in.a), b = operand(in.b);
  switch (in.rmw) {
    case RmwOp::add: return a + " + " + b;
    case RmwOp::sub: return a + " - " + b;
    case RmwOp::mul: return a + " * " + b;
    case RmwOp::and_: return a + " & " + b;
    case RmwOp::or_: return a + " | " + b;
    case RmwOp::xor_: return a + " ^ " + b;
    default: break;
  }
  return a;
}

// One instruction as CUDA C++ (inline PTX for every memory access and fence).
std::string emit(const Instr& in, const std::string& label_prefix) {
  const std::string addr = "a_" + in.loc;
  switch (in.op) {
    case Op::load:
      return "asm volatile(\"ld" + std::string(in.sem == Sem::weak ? "" : scoped(in)) +
             ".global.u32 %0, [%1];\" : \"=r\"(r_" + in.dst + ") : \"l\"(" + addr + ") : \"memory\");";
    case Op::store:
      return "asm volatile(\"st" + std::string(in.sem == Sem::weak ? "" : scoped(in)) +
             ".global.u32 [%0], %1;\" :: \"l\"(" + addr + "), \"r\"(" + operand(in.a) + ") : \"memory\");";
    case Op::atom:
    case Op::red: {  // red as atom with a dropped result: the same memory-model events
      const std::string dst = in.op == Op::atom ? "r_" + in.dst : "r__dropped";
      const std::string sem = in.sem == Sem::weak ? "" : scoped(in);
      const std::string v = in.rmw == RmwOp::sub ? "(0u - " + operand(in.a) + ")" : operand(in.a);
      if (in.rmw == RmwOp::cas)
        return "asm volatile(\"atom" + sem + ".global.cas.b32 %0, [%1], %2, %3;\" : \"=r\"(" + dst + ") : \"l\"(" +
               addr + "), \"r\"(" + v + "), \"r\"(" + operand(in.b) + ") : \"memory\");";
      return "asm volatile(\"atom" + sem + ".global." + rmw_name(in.rmw) + " %0, [%1], %2;\" : \"=r\"(" + dst +
             ") : \"l\"(" + addr + "), \"r\"(" + v + ") : \"memory\");";
    }
    case Op::fence:
      return "asm volatile(\"fence." + std::string(to_string(in.sem)) + "." + to_string(in.scope) + ";\" ::: \"memory\");";
    case Op::move: return "r_" + in.dst + " = " + operand(in.a) + ";";
    case Op::alu: return "r_" + in.dst + " = " + alu(in) + ";";
    case Op::branch:
      if (!in.a.is_reg && !in.b.is_reg && in.a.value == in.b.value && in.branch_if_equal)
        return "goto " + label_prefix + in.target + ";";
      return std::string("if ((") + operand(in.a) + ") " + (in.branch_if_equal ? "==" : "!=") + " (" + operand(in.b) +
             ")) goto " + label_prefix + in.target + ";";
    case Op::label: return label_prefix + in.target + ":;";
    case Op::barrier: break;
  }
  return "";
}

}  // namespace

std::string gpu_unsupported(const LitmusTest& t) {
  for (const Thread& th : t.threads) {
    if (th.where.host) return th.name + " runs on the host; the GPU run takes GPU threads only";
    if (th.where.gpu != t.threads.front().where.gpu) return "the test spans two GPUs; the GPU run takes one";
    for (const Instr& in : th.code)
      if (in.op == Op::barrier) return "a barrier needs every thread of its block; the GPU run does not model that";
  }
  return "";
}

LitmusGpuPlan plan_gpu_run(const LitmusTest& t, int groups) {
  LitmusGpuPlan p;
  p.groups = groups;
  std::map<int, int> role_of_cta;
  for (const Thread& th : t.threads)
    if (!role_of_cta.count(th.where.cta)) {
      const int r = static_cast<int>(role_of_cta.size());
      role_of_cta[th.where.cta] = r;
    }
  p.roles = static_cast<int>(role_of_cta.size());
  p.thread_at.assign(static_cast<std::size_t>(p.roles), {});
  for (std::size_t i = 0; i < t.threads.size(); ++i)
    p.thread_at[static_cast<std::size_t>(role_of_cta[t.threads[i].where.cta])].push_back(static_cast<int>(i));
  p.warps = 1;
  for (const auto& w : p.thread_at) p.warps = std::max(p.warps, static_cast<int>(w.size()));
  std::set<std::string> locs;
  for (const auto& [l, v] : t.memory) locs.insert(l);
  p.regs.assign(t.threads.size(), {});
  for (std::size_t i = 0; i < t.threads.size(); ++i) {
    std::set<std::string> regs;
    for (const auto& [key, v] : t.regs)
      if (key.first == static_cast<int>(i)) regs.insert(key.second);
    for (const Instr& in : t.threads[i].code) {
      if (!in.loc.empty()) locs.insert(in.loc);
      if (!in.dst.empty()) regs.insert(in.dst);
      if (in.a.is_reg) regs.insert(in.a.reg);
      if (in.b.is_reg) regs.insert(in.b.reg);
    }
    p.regs[i].assign(regs.begin(), regs.end());
    p.max_regs = std::max(p.max_regs, static_cast<int>(regs.size()));
  }
  p.locs.assign(locs.begin(), locs.end());
  return p;
}

std::string litmus_kernel_source(const LitmusTest& t, const LitmusGpuPlan& p) {
  std::ostringstream s;
  s << "// cudasync litmus " << t.name << ": generated from the test (core/litmus/litmus_kernel.hpp)\n"
    << "extern \"C\" __global__ void " << kLitmusEntry
    << "(unsigned* mem, unsigned* regs, const unsigned* perm, unsigned* start, unsigned long long budget_ns,"
       " unsigned* late) {\n"
    << "  const int role = blockIdx.x % " << p.roles << ", group = blockIdx.x / " << p.roles << ";\n"
    << "  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;\n"
    << "  const unsigned instance = group * 32 + lane;\n"
    << "  const unsigned slot = perm[instance];\n"
    << "  // Every block arrives, then all start together (a deadline on %globaltimer ends the wait).\n"
    << "  __shared__ int go;\n"
    << "  if (threadIdx.x == 0) {\n"
    << "    unsigned long long t0, now;\n"
    << "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n"
    << "    atomicAdd(start, 1u);\n"
    << "    go = 1;\n"
    << "    while (*(volatile unsigned*)start < gridDim.x) {\n"
    << "      asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(now));\n"
    << "      if (now - t0 > budget_ns) { atomicExch(late, 1u); go = 0; break; }\n"
    << "    }\n"
    << "  }\n"
    << "  __syncthreads();\n"
    << "  if (!go) return;\n";
  for (std::size_t l = 0; l < p.locs.size(); ++l)
    s << "  unsigned* a_" << p.locs[l] << " = mem + (" << l << "u * " << p.instances() << "u + slot) * " << kLineWords
      << "u;\n";
  s << "  unsigned r__dropped = 0; (void)r__dropped;\n";
  for (int role = 0; role < p.roles; ++role)
    for (std::size_t w = 0; w < p.thread_at[static_cast<std::size_t>(role)].size(); ++w) {
      const int ti = p.thread_at[static_cast<std::size_t>(role)][w];
      const Thread& th = t.threads[static_cast<std::size_t>(ti)];
      s << "  if (role == " << role << " && warp == " << w << ") {  // " << th.name << "\n";
      for (const std::string& r : p.regs[static_cast<std::size_t>(ti)]) {
        const auto init = t.regs.find({ti, r});
        s << "    unsigned r_" << r << " = " << u32(init == t.regs.end() ? 0 : init->second) << ";\n";
      }
      // #line names the thread and the test's line: the SASS's line information maps back to both.
      for (const Instr& in : th.code)
        s << "#line " << in.line << " \"" << th.name << "\"\n    " << emit(in, "L" + std::to_string(ti) + "_") << "\n";
      for (std::size_t k = 0; k < p.regs[static_cast<std::size_t>(ti)].size(); ++k)
        s << "    regs[(instance * " << t.threads.size() << "u + " << ti << "u) * " << p.max_regs << "u + " << k
          << "u] = r_" << p.regs[static_cast<std::size_t>(ti)][k] << ";\n";
      s << "  }\n";
    }
  s << "}\n";
  return s.str();
}

void tally(const LitmusTest& t, const LitmusGpuPlan& p, const LitmusLaunchOut& out, Histogram& h) {
  if (out.late) {
    ++h.late_launches;
    return;
  }
  const std::size_t nt = t.threads.size();
  // The terms the condition reads, in order: they name an outcome.
  std::vector<const Term*> terms;
  std::vector<const Cond*> stack = {&t.condition};
  while (!stack.empty()) {
    const Cond* c = stack.back();
    stack.pop_back();
    for (const Term* x : {&c->lhs, &c->rhs})
      if ((c->kind == Cond::Kind::eq || c->kind == Cond::Kind::ne) && x->kind != Term::Kind::value) {
        bool seen = false;
        for (const Term* y : terms) seen = seen || (y->kind == x->kind && y->thread == x->thread && y->name == x->name);
        if (!seen) terms.push_back(x);
      }
    for (auto it = c->kids.rbegin(); it != c->kids.rend(); ++it) stack.push_back(it->get());
  }
  for (int i = 0; i < p.instances(); ++i) {
    const auto value = [&](const Term& x) -> long long {
      if (x.kind == Term::Kind::value) return x.value;
      if (x.kind == Term::Kind::loc) {
        for (std::size_t l = 0; l < p.locs.size(); ++l)
          if (p.locs[l] == x.name) return out.mem[l * static_cast<std::size_t>(p.instances()) + static_cast<std::size_t>(i)];
        return 0;
      }
      const auto& names = p.regs[static_cast<std::size_t>(x.thread)];
      for (std::size_t k = 0; k < names.size(); ++k)
        if (names[k] == x.name)
          return out.regs[(static_cast<std::size_t>(i) * nt + static_cast<std::size_t>(x.thread)) * static_cast<std::size_t>(p.max_regs) + k];
      return 0;
    };
    std::vector<const Cond*> todo;
    const std::function<bool(const Cond&)> eval = [&](const Cond& c) -> bool {
      switch (c.kind) {
        case Cond::Kind::truth: return true;
        case Cond::Kind::eq: return value(c.lhs) == value(c.rhs);
        case Cond::Kind::ne: return value(c.lhs) != value(c.rhs);
        case Cond::Kind::not_: return !eval(*c.kids[0]);
        case Cond::Kind::and_: return eval(*c.kids[0]) && eval(*c.kids[1]);
        case Cond::Kind::or_: return eval(*c.kids[0]) || eval(*c.kids[1]);
      }
      return false;
    };
    const bool c = eval(t.condition);
    if (t.quantifier == Quantifier::forall ? !c : c) ++h.target;
    std::string key;
    for (const Term* x : terms) {
      key += (key.empty() ? "" : " ") +
             (x->kind == Term::Kind::reg ? t.threads[static_cast<std::size_t>(x->thread)].name + ":" + x->name : x->name) +
             "=" + std::to_string(value(*x));
    }
    ++h.outcomes[key];
    ++h.instances;
  }
}

}  // namespace cudasync::litmus
