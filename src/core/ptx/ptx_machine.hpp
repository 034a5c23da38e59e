#pragma once
// The PTX model: runs one entry of a parsed Program (ptx_parse.hpp) on the CPU, a grid of blocks x
// threads (x only), each thread with its own program counter and registers (independent thread
// scheduling), under a chosen Schedule (ptx_schedule.hpp), while a happens-before checker
// (ptx_race.hpp) watches every global and shared access.
//
//   ptx::Program p = ptx::parse_program(text);                 // Error{"malformed", line} if not
//   ptx::Launch l;
//   l.grid = 8; l.block = 128;
//   l.buffers = {{"in", ptx::bytes_of(in)}, {"out", std::vector<std::uint8_t>(4 * 1024)}};
//   l.args = {ptx::Arg::buffer(0), ptx::Arg::buffer(1)};     // the entry's .param .u64 in order
//   ptx::Outcome o = ptx::run_kernel(p, l, ptx::Schedule::seeded_random(3));
//   // o.findings empty and o.finished: ptx::ints_of(o.buffers[1]) is what the kernel wrote.
//   // Without the __syncthreads(): o.findings[0].kind == "data-race", where = {block_sum.cu:5 (the
//   // st.shared), block_sum.cu:7 (the ld.shared)}, threads {(0, 32), (0, 0)}, address "warp_sums+4".
//
// Findings (kind ids are stable; messages are English for a person, the caller words its own):
//   data-race                two conflicting accesses nothing orders (both lines, threads, address)
//   deadlock                 no thread can move: who waits on what, at which line
//   barrier-divergence       a bar.sync that threads of the block will never reach: they exited
//   barrier-count            two arrivals at one barrier phase with different thread counts
//   warp-mask                a .sync warp instruction whose membermask leaves out the lane that
//                            runs it, names an exited lane, or whose source lane is outside it
//   step-limit               the run did not finish in N steps (a spin that never ends)
//   out-of-bounds            an access outside every buffer / the shared or local size
//   uninitialised-shared     a read of shared memory no thread wrote
//   trap                     a thread ran trap (__trap(), a failed assert)
//   unsupported-instruction  an instruction the model does not implement (its text and line):
//                            calls (printf), clusters, mbarrier, textures, tensor cores, grid sync
//   malformed                the PTX text could not be read (its line)
//   limit                    the launch is larger than the model runs (threads, memory)
// Data races and uninitialised reads let the run go on (each pair of lines is reported once); every
// other finding ends the run.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/ptx/ptx_parse.hpp"
#include "core/ptx/ptx_race.hpp"
#include "core/ptx/ptx_schedule.hpp"

namespace cudasync::ptx {

struct Limits {
  std::uint64_t max_steps = 2'000'000;         // instructions, all threads together
  std::uint64_t max_memory = 4ull << 20;       // buffers + shared x blocks + local x threads, bytes
  int max_threads = kMaxModelThreads;
};

struct Buffer {
  std::string name;
  std::vector<std::uint8_t> bytes;  // the initial contents; its size is the buffer's size
};

// A kernel argument: a buffer's address, or a value (written in the parameter's own width).
struct Arg {
  bool is_buffer = false;
  int buffer = 0;
  std::uint64_t value = 0;
  static Arg buffer_of(int index) { return Arg{true, index, 0}; }
  static Arg value_of(std::uint64_t v) { return Arg{false, 0, v}; }
};

struct Launch {
  std::string entry;  // empty: the program's first entry
  int grid = 1;
  int block = 32;
  std::vector<Buffer> buffers;
  std::vector<Arg> args;
  std::uint64_t dynamic_shared = 0;  // bytes for an .extern .shared array
  Limits limits;
  // The blocks are spread over this many GPUs, in order (blocks 0..k-1 on the first): .gpu scope
  // then reaches only the blocks of one, and a flag handed between them needs .sys.
  int gpus = 1;
};

struct ThreadRef {
  int block = 0;
  int thread = 0;  // threadIdx.x
};

struct Finding {
  std::string kind;
  std::string message;
  std::vector<Location> where;     // data-race: {the earlier access, the later}
  std::vector<ThreadRef> threads;  // data-race: the two threads, in the same order
  std::string address;             // "out+16", "warp_sums+4 (block 0)"
  std::vector<int> ptx_lines;      // the PTX lines involved
  std::string schedule;            // the schedule's name with its seed
};

struct Outcome {
  bool finished = false;  // every thread exited
  std::uint64_t steps = 0;
  std::string schedule;
  std::vector<Finding> findings;
  std::vector<std::vector<std::uint8_t>> buffers;  // each buffer after the run
  const Finding* first(const std::string& kind) const;
};

// A machine for one launch. add_buffer returns the buffer's global address (the value a .u64
// pointer parameter takes); run may be called once.
class Machine {
 public:
  Machine(const Program& program, const std::string& entry, int grid, int block, Limits limits = {});
  ~Machine();
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  std::uint64_t add_buffer(std::vector<std::uint8_t> bytes, std::string name);
  void set_params(std::vector<std::uint64_t> values);  // one per .param, in order
  void set_dynamic_shared(std::uint64_t bytes);
  void set_gpus(int gpus);  // Launch::gpus
  // Throws ptx::Error for unsupported-instruction and limit; every other finding is in the Outcome.
  Outcome run(const Schedule& schedule);
  std::vector<std::uint8_t> buffer(int index) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One launch under one schedule; an Error (unsupported-instruction, limit) becomes the finding.
Outcome run_kernel(const Program& program, const Launch& launch, const Schedule& schedule);

// The launch under each schedule in turn: the first outcome with a finding, else the last one.
Outcome check_schedules(const Program& program, const Launch& launch, const std::vector<Schedule>& schedules);

// A handful of schedules that hunt: round-robin, reverse, one block (or warp) ahead for the first
// and the last block, switch-every-access and seeded-random with seeds from `seed`.
std::vector<Schedule> hunting_schedules(const Launch& launch, std::uint64_t seed, int random_runs = 2);

std::vector<std::uint8_t> bytes_of(const std::vector<std::int32_t>& v);
std::vector<std::int32_t> ints_of(const std::vector<std::uint8_t>& b);

}  // namespace cudasync::ptx
