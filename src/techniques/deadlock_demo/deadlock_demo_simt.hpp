#pragma once
// The programs deadlock-demo's lane-level parts run on core's SIMT step machine (core/simt/simt.hpp):
// warp-spinlock's CAS lock and its cycle of flags, lock-order's two blocks. Programs only: the
// machine runs them (lockstep or independent), deadlock_demo_trace reads the runs. The words a
// lane spins on are marked (Instr::wait), and each word's id is what a record's `on` says for it:
// a lock's number, a flag's owner.
#include "core/simt/simt.hpp"

namespace cudasync::deadlock_demo {

// warp-spinlock: `lanes` lanes of one warp each take the CAS lock once (the lock word holds the
// holder's lane + 1), add one to the counter, release.
simt::Machine spinlock_machine(simt::Scheduling s, int lanes);
// The wait-for cycle inside a warp: lane i waits for lane i+1's flag (mod lanes), then sets its own.
simt::Machine ring_machine(simt::Scheduling s, int lanes);
// lock-order: two blocks of one thread (independent). Broken: block b takes its first lock (A for
// 0, B for 1), says so, waits until the other holds its first, then takes its second. Fixed: both
// take A then B, `iters` times, adding one to a counter under both.
simt::Machine lock_order_machine(bool fixed, int iters);

}  // namespace cudasync::deadlock_demo
