#pragma once
// The PTX text NVRTC (or nvcc -ptx) emits for a student's function in a lesson's harness, parsed
// into a Program the interpreter (ptx_machine.hpp) runs on the CPU. Only what such programs hold is
// read: entries, .reg / .shared / .local / .global declarations, labels, instructions with their
// guard, opcode (split into a base and modifiers) and operands, and each instruction's source
// location from the latest .loc. Everything else (the debug sections, .file, .version, .target,
// .pragma, comments) is skipped; a line that cannot be read is an Error naming its line number.
//
//   shfl.sync.down.b32 %r13|%p1, %r8, %r11, %r10, %r12;   (after .loc 3 397 9, inlined_at 2 3 3)
//   -> base "shfl", mods {"sync", "down", "b32"}, operands {pair %r13|%p1, %r8, %r11, %r10, %r12},
//      loc = file 2's line 3 (file 3 is a toolkit header, .../include/sm_30_intrinsics.hpp: the
//      student wrote __shfl_down_sync on line 3 of their file).
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudasync::ptx {

// A finding that stops a parse or a run: kind is a stable id ("malformed",
// "unsupported-instruction", "limit"), line the PTX line (1-based, 0: none).
class Error : public std::runtime_error {
 public:
  Error(std::string kind, int line, const std::string& message)
      : std::runtime_error(message), kind_(std::move(kind)), line_(line) {}
  const std::string& kind() const { return kind_; }
  int line() const { return line_; }

 private:
  std::string kind_;
  int line_ = 0;
};

struct Location {
  std::string file;  // as .file names it (a path); empty when no .loc came before
  int line = 0;
  int column = 0;
};
// "block_sum.cu:5" (the file's last path component), or "?" without a location.
std::string to_string(const Location& loc);

struct Operand {
  enum class Kind {
    reg,        // %r1, %rd2, %p3, %f4, and the special registers (%tid.x ...): name
    imm,        // 42, -1, 0x1F, 0f3F800000 (bits in imm, is_float set)
    address,    // [%rd1], [%rd1+8], [sym], [sym+4], [0x10]: name (register or symbol, may be empty) + imm;
                // [tex, {%r1}]: name holds the text whole and name2 is "composite"
    pair,       // %r13|%p1: name and name2
    vector,     // {%r1, %r2}: elems
    symbol,     // a label, a variable or parameter name
  };
  Kind kind = Kind::reg;
  std::string name;
  std::string name2;
  std::int64_t imm = 0;
  bool is_float = false;  // imm holds float (0f, 8 hex digits) or double (0d, 16) bits
  bool negated = false;   // !%p as a predicate source
  std::vector<Operand> elems;
};

struct Instr {
  std::string text;      // the line as written, trimmed
  int line = 0;          // its line in the PTX text
  Location loc;          // the student's location (see above)
  std::string guard;     // "%p1" for @%p1 / @!%p1, empty when unguarded
  bool guard_negated = false;
  std::string base;               // "shfl"
  std::vector<std::string> mods;  // {"sync", "down", "b32"}
  std::vector<Operand> ops;
  bool has_mod(const std::string& m) const;
};

struct Variable {
  std::string name;
  std::string space;  // "shared", "local", "global", "const"
  std::uint64_t align = 1;
  std::uint64_t bytes = 0;  // element size x count
  std::vector<std::uint8_t> init;  // initial bytes (globals with = {...} or = v), else empty
  int line = 0;
};

struct Param {
  std::string name;
  std::string type;  // "u64", "u32", "b8" ...
  std::uint64_t bytes = 8;
  std::uint64_t align = 8;
  std::uint64_t offset = 0;  // inside the parameter buffer
};

struct Entry {
  std::string name;
  int line = 0;
  std::vector<Param> params;
  std::vector<Variable> vars;  // .shared and .local declared inside the entry
  std::vector<Instr> code;
  std::map<std::string, std::size_t> labels;  // label -> index of the next instruction
};

struct Program {
  std::vector<Entry> entries;
  std::vector<Variable> globals;  // module-level .global / .shared / .const variables
  std::map<int, std::string> files;  // .file number -> path
  const Entry* find(const std::string& name) const;  // nullptr when absent
};

// Parses a module. Throws Error{"malformed", line, "line 12: ..."} for a line it cannot read.
Program parse_program(const std::string& text);

// True for a path inside a toolkit's headers (".../include/..."): not the student's.
bool is_toolkit_file(const std::string& path);

}  // namespace cudasync::ptx
