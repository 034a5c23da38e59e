// core/ptx parsing: what nvcc -ptx emits for a student's function in a harness becomes entries,
// declarations, labels and instructions, each at the student's line; a line that cannot be read is
// an error naming its line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/ptx/ptx_parse.hpp"

namespace cudasync::ptx {
namespace {

std::string parse_fixture(const std::string& name) {
  std::ifstream in(std::string(CUDASYNC_SOURCE_DIR) + "/tests/core/ptx/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const Instr* first_instr_starting(const Entry& e, const std::string& opcode_start) {
  for (const auto& in : e.code)
    if (in.text.rfind(opcode_start, 0) == 0) return &in;
  return nullptr;
}

TEST(PtxParse, ReadsTheEntryItsParametersAndItsSharedVariable) {
  const Program p = parse_program(parse_fixture("block_sum_right.ptx"));
  ASSERT_EQ(p.entries.size(), 1u);
  const Entry& e = p.entries[0];
  EXPECT_EQ(e.name, "cudasync_exercise");
  ASSERT_EQ(e.params.size(), 2u);
  EXPECT_EQ(e.params[0].name, "cudasync_exercise_param_0");
  EXPECT_EQ(e.params[1].offset, 8u);
  ASSERT_EQ(e.vars.size(), 1u);
  EXPECT_EQ(e.vars[0].space, "shared");
  EXPECT_EQ(e.vars[0].bytes, 16u);
  EXPECT_EQ(e.vars[0].align, 4u);
  EXPECT_EQ(e.labels.count("$L__BB0_2"), 1u);
  EXPECT_EQ(p.find("cudasync_exercise"), &e);
  EXPECT_EQ(p.find("other"), nullptr);
}

TEST(PtxParse, SplitsAnOpcodeIntoBaseAndModifiersAndReadsARegisterPair) {
  const Program p = parse_program(parse_fixture("block_sum_right.ptx"));
  const Instr* shfl = first_instr_starting(p.entries[0], "shfl.sync.down.b32");
  ASSERT_NE(shfl, nullptr);
  EXPECT_EQ(shfl->base, "shfl");
  EXPECT_EQ(shfl->mods, (std::vector<std::string>{"sync", "down", "b32"}));
  ASSERT_EQ(shfl->ops.size(), 5u);
  EXPECT_EQ(shfl->ops[0].kind, Operand::Kind::pair);
  EXPECT_EQ(shfl->ops[0].name, "%r13");
  EXPECT_EQ(shfl->ops[0].name2, "%p1");
}

TEST(PtxParse, PlacesAnInlinedToolkitInstructionAtTheStudentsLine) {
  const Program p = parse_program(parse_fixture("block_sum_right.ptx"));
  // The shuffle is written in sm_30_intrinsics.hpp (a toolkit header), inlined at block_sum.cu:3.
  const Instr* shfl = first_instr_starting(p.entries[0], "shfl.sync.down.b32");
  ASSERT_NE(shfl, nullptr);
  EXPECT_EQ(to_string(shfl->loc), "block_sum.cu:3");
  const Instr* store = first_instr_starting(p.entries[0], "st.shared.u32");
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(to_string(store->loc), "block_sum.cu:5");
  const Instr* out = first_instr_starting(p.entries[0], "st.global.u32");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(to_string(out->loc), "cudasync-harness:3");
  EXPECT_TRUE(is_toolkit_file("/usr/local/cuda/targets/x86_64-linux/include/sm_30_intrinsics.hpp"));
  EXPECT_FALSE(is_toolkit_file("/home/student/block_sum.cu"));
}

TEST(PtxParse, ReadsEveryOperandForm) {
  const Program p = parse_program(R"(
.version 9.0
.target sm_90
.address_size 64
.global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
.global .align 4 .u32 counter = 7;
/* a block
   comment */
.visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)
{
  .reg .b32 %r<9>;
  .local .align 4 .b8 __local_depot0[16];
  mov.u32 %r1, 0x1F;           // hex
  mov.u32 %r2, -5;
  mov.f32 %f1, 0f3F800000;
  ld.global.v2.u32 {%r3, %r4}, [%rd1+-8];
  ld.shared.u32 %r5, [sym+4];
  @!%p1 bra $L__BB0_1;
$L__BB0_1:
  setp.ne.and.s32 %p2, %r1, 0, !%p1;
  mov.u32 %r6, %tid.x;
  ret;
}
)");
  ASSERT_EQ(p.globals.size(), 2u);
  EXPECT_EQ(p.globals[0].init, (std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(p.globals[1].init, (std::vector<std::uint8_t>{7, 0, 0, 0}));
  const Entry& e = p.entries.at(0);
  EXPECT_EQ(e.params.at(1).bytes, 4u);
  EXPECT_EQ(e.vars.at(0).space, "local");
  ASSERT_EQ(e.code.size(), 9u);
  EXPECT_EQ(e.code[0].ops[1].imm, 31);
  EXPECT_EQ(e.code[1].ops[1].imm, -5);
  EXPECT_TRUE(e.code[2].ops[1].is_float);
  EXPECT_EQ(e.code[2].ops[1].imm, 0x3F800000);
  EXPECT_EQ(e.code[3].ops[0].kind, Operand::Kind::vector);
  EXPECT_EQ(e.code[3].ops[0].elems.size(), 2u);
  EXPECT_EQ(e.code[3].ops[1].kind, Operand::Kind::address);
  EXPECT_EQ(e.code[3].ops[1].name, "%rd1");
  EXPECT_EQ(e.code[3].ops[1].imm, -8);
  EXPECT_EQ(e.code[4].ops[1].name, "sym");
  EXPECT_EQ(e.code[4].ops[1].imm, 4);
  EXPECT_EQ(e.code[5].guard, "%p1");
  EXPECT_TRUE(e.code[5].guard_negated);
  EXPECT_EQ(e.labels.at("$L__BB0_1"), 6u);
  EXPECT_TRUE(e.code[6].ops[3].negated);
  EXPECT_EQ(e.code[7].ops[1].name, "%tid.x");
  EXPECT_EQ(e.code[7].line, 21);
}

TEST(PtxParse, ANestedBlockOfInlineAsmHasItsOwnRegisters) {
  // Two inline asm blocks each declare a predicate q; the second is written on one line.
  const Program p = parse_program(R"(.visible .entry k()
{
  .reg .b32 %r<4>;
  {
  .reg .pred q;
  setp.eq.u32 q, %r1, 0;
  @q mov.u32 %r2, 1;
  }
  { .reg .pred q; setp.ne.u32 q, %r1, 0; selp.u32 %r3, 1, 0, q; }
  ret;
}
)");
  const Entry& e = p.entries.at(0);
  ASSERT_EQ(e.code.size(), 5u);
  EXPECT_EQ(e.code[0].ops[0].kind, Operand::Kind::reg);
  EXPECT_EQ(e.code[0].ops[0].name, "q#1");
  EXPECT_EQ(e.code[1].guard, "q#1");
  EXPECT_EQ(e.code[2].ops[0].name, "q#2");
  EXPECT_EQ(e.code[2].line, 9);
  EXPECT_EQ(e.code[3].ops[3].name, "q#2");
  EXPECT_EQ(e.code[2].ops[1].name, "%r1");
  EXPECT_EQ(e.code[4].base, "ret");
}

TEST(PtxParse, SkipsTheDebugSectionAndComments) {
  const Program p = parse_program(parse_fixture("message_fenced.ptx"));
  ASSERT_EQ(p.entries.size(), 1u);
  EXPECT_EQ(p.entries[0].name, "message");
  EXPECT_EQ(p.files.size(), 2u);
}

TEST(PtxParse, AMalformedLineIsAnErrorNamingItsLine) {
  const std::string text = ".version 9.0\n.visible .entry k()\n{\n  mov.u32 %r1, %r2 %r3;\n  ret;\n}\n";
  try {
    parse_program(text);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "malformed");
    EXPECT_EQ(e.line(), 4);
    EXPECT_NE(std::string(e.what()).find("line 4"), std::string::npos) << e.what();
  }
}

TEST(PtxParse, AStatementWithoutItsSemicolonIsMalformed) {
  try {
    parse_program(".visible .entry k()\n{\n  ret\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "malformed");
    EXPECT_EQ(e.line(), 3);
  }
}

TEST(PtxParse, TextOutsideAnyEntryIsMalformed) {
  try {
    parse_program(".version 9.0\nthis is not ptx;\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "malformed");
    EXPECT_EQ(e.line(), 2);
  }
}

}  // namespace
}  // namespace cudasync::ptx
