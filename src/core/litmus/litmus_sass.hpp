#pragma once
// What the compiler made of a litmus test: the SASS of each thread's instructions, from the
// generated kernel's machine code (NVRTC, -lineinfo) disassembled by the toolkit's nvdisasm with
// its line information. The generated source puts `#line N "P1"` before each instruction of thread
// P1, so an address's line names the thread and the test's line:
//
//   //## File "P1", line 5
//   /*0090*/   LDG.E.STRONG.GPU R4, desc[UR4][R2.64] ;
//
// gives thread P1, line 5: LDG.E.STRONG.GPU.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudasync::litmus {

// nvdisasm where the CUDA toolkit is (PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin);
// `looked` says where it looked when it is not found.
std::optional<std::string> find_nvdisasm(std::string& looked);

// nvdisasm --print-line-info's text, read: (file's last name component, line) -> the instructions there, in order, each
// without its address, operands kept ("LDG.E.STRONG.GPU R4, desc[UR4][R2.64]").
std::map<std::pair<std::string, int>, std::vector<std::string>> sass_by_line(const std::string& disassembly);

// Disassembles `cubin` with `nvdisasm`; "" and `why` set when it cannot.
std::string disassemble(const std::string& nvdisasm, const std::string& cubin, std::string& why);

}  // namespace cudasync::litmus
