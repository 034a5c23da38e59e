#include "techniques/deadlock_demo/deadlock_demo_simt.hpp"

#include <string>

#include "techniques/deadlock_demo/deadlock_demo.hpp"

namespace cudasync::deadlock_demo {

using simt::At;
using simt::Word;

namespace {

enum Reg { r };

}  // namespace

simt::Machine spinlock_machine(simt::Scheduling s, int lanes) {
  enum Mem { lock, counter };
  simt::Machine m;
  m.name = say("program.spinlock");
  m.scheduling = s;
  m.threads = lanes;
  m.words = {{"lock", Word::Kind::lock}, {"counter"}};
  m.code = {
      simt::cas(lock, simt::lane_plus(1), r, "while (atomicCAS(&lock, 0, lane + 1) != 0)").waiting(),  // 0
      simt::branch(simt::reg_ne(r, 0), 0, 2, "  ;   // spin: try again"),                              // 1
      simt::atomic_add(counter, simt::value(1), -1, "counter += 1;   // the critical section"),         // 2
      simt::exch(lock, simt::value(0), "atomicExch(&lock, 0);"),                                       // 3
      simt::exit("return;"),                                                                           // 4
  };
  return m;
}

simt::Machine ring_machine(simt::Scheduling s, int lanes) {
  simt::Machine m;
  m.name = say("program.ring");
  m.scheduling = s;
  m.threads = lanes;
  for (int l = 0; l < lanes; ++l) m.words.push_back({"flag[" + std::to_string(l) + "]", Word::Kind::flag, false, false, l, l});
  m.code = {
      simt::load(0, r, "while (flag[(lane + 1) % 32] == 0)").addressed(At::next).waiting(),  // 0
      simt::branch(simt::reg_eq(r, 0), 0, 2, "  ;   // spin: the next lane has not set its flag"),  // 1
      simt::store(0, simt::value(1), "flag[lane] = 1;").addressed(At::self),                  // 2
      simt::exit("return;"),                                                                  // 3
  };
  return m;
}

simt::Machine lock_order_machine(bool fixed, int iters) {
  enum Mem { lock_a, lock_b, holding, count = 4 };
  simt::Machine m;
  m.scheduling = simt::Scheduling::independent;  // blocks never share a program counter
  m.blocks = 2;
  m.iters = iters;
  // A word's id is what a record's `on` says for it: a lock's number, a flag's owner.
  m.words = {{"lock A", Word::Kind::lock, false, false, -1, 0},
             {"lock B", Word::Kind::lock, false, false, -1, 1},
             {"holding[0]", Word::Kind::flag, false, false, 0, 0},
             {"holding[1]", Word::Kind::flag, false, false, 1, 1},
             {"count"}};
  if (fixed) {
    m.name = say("program.lock-order-fixed");
    m.code = {
        simt::cas(lock_a, simt::lane_plus(1), r, "while (atomicCAS(&A, 0, b + 1) != 0)").waiting(),  // 0
        simt::branch(simt::reg_ne(r, 0), 0, 2, "  ;   // spin on A"),                                // 1
        simt::cas(lock_b, simt::lane_plus(1), r, "while (atomicCAS(&B, 0, b + 1) != 0)").waiting(),  // 2
        simt::branch(simt::reg_ne(r, 0), 2, 4, "  ;   // spin on B"),                                // 3
        simt::atomic_add(count, simt::value(1), -1, "count += 1;   // under both locks"),            // 4
        simt::exch(lock_b, simt::value(0), "atomicExch(&B, 0);"),                                   // 5
        simt::exch(lock_a, simt::value(0), "atomicExch(&A, 0);"),                                   // 6
        simt::loop(0, 8, "if (++i < iters) goto top;"),                                             // 7
        simt::exit("return;"),                                                                      // 8
    };
    return m;
  }
  m.name = say("program.lock-order");
  m.code = {
      simt::cas(lock_a, simt::lane_plus(1), r, "while (atomicCAS(first, 0, b + 1) != 0)   // A for block 0, B for block 1")
          .addressed(At::self)
          .waiting(),                                                                                      // 0
      simt::branch(simt::reg_ne(r, 0), 0, 2, "  ;"),                                                       // 1
      simt::store(holding, simt::value(1), "holding[b] = 1;").addressed(At::self),                         // 2
      simt::load(holding, r, "while (holding[other] == 0)   // the window, made certain").addressed(At::next).waiting(),  // 3
      simt::branch(simt::reg_eq(r, 0), 3, 5, "  ;"),                                                       // 4
      simt::cas(lock_a, simt::lane_plus(1), r, "while (atomicCAS(second, 0, b + 1) != 0)   // B for block 0, A for block 1")
          .addressed(At::next)
          .waiting(),                                                                                      // 5
      simt::branch(simt::reg_ne(r, 0), 5, 7, "  ;"),                                                       // 6
      simt::atomic_add(count, simt::value(1), -1, "count += 1;"),                                          // 7
      simt::exch(lock_a, simt::value(0), "atomicExch(second, 0);").addressed(At::next),                    // 8
      simt::exch(lock_a, simt::value(0), "atomicExch(first, 0);").addressed(At::self),                     // 9
      simt::exit("return;"),                                                                               // 10
  };
  return m;
}

}  // namespace cudasync::deadlock_demo
