#include "core/kernel_listing.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "core/words/words.hpp"

namespace cudasync {

namespace {
std::vector<std::string> archs_of(const std::vector<KernelCode>& codes) {
  std::vector<std::string> out;
  for (const auto& c : codes)
    if (std::find(out.begin(), out.end(), c.arch) == out.end()) out.push_back(c.arch);
  return out;
}
}  // namespace

std::vector<std::string> KernelListing::sass_archs() const { return archs_of(sass); }
std::vector<std::string> KernelListing::ptx_archs() const { return archs_of(ptx); }

KernelListing parse_kernel_listing(const std::string& records) {
  KernelListing l;
  std::istringstream in(records);
  std::string arch[2];  // 0: SASS, 1: PTX
  for (std::string line; std::getline(in, line);) {
    if (line.size() < 3 || line[1] != ' ') continue;
    const char tag = line[0];
    if (tag == 'W') {  // a warp-level exchange (SASS): in `warp` only
      if (!l.sass.empty()) l.sass.back().warp.push_back(line.substr(2));
      continue;
    }
    if (tag != 'S' && tag != 'P' && tag != 'M' && tag != 'Q') continue;
    const int k = tag == 'S' || tag == 'M' ? 0 : 1;
    const bool memory = tag == 'M' || tag == 'Q';  // an access: in `ordering` only
    auto& codes = k == 0 ? l.sass : l.ptx;
    const std::string rest = line.substr(2);
    if (!memory && rest.rfind("arch ", 0) == 0) {
      arch[k] = rest.substr(5);
    } else if (!memory && rest.rfind("fn ", 0) == 0) {
      codes.push_back({arch[k], rest.substr(3), {}, {}, {}});
    } else if (!codes.empty()) {
      if (!memory) codes.back().instructions.push_back(rest);
      codes.back().ordering.push_back(rest);
    }
  }
  return l;
}

namespace {
// The reasons the build writes (cmake/kernel_listing.cmake and kernel_listing_run.cmake), keys of
// core's catalog; a failed tool's reason quotes what it said.
struct NoListing {
  const char* key;
  bool quotes_the_tool;
};
constexpr NoListing kNoListing[] = {{"listing.no-cuda", false},
                                    {"listing.no-cuobjdump", false},
                                    {"listing.sass-failed", true},
                                    {"listing.ptx-failed", true}};

words::Entry no_listing_words(const KernelListingData& d) {
  for (const NoListing& n : kNoListing)
    if (std::string_view(d.reason) == n.key)
      return n.quotes_the_tool ? words::say_both("core", n.key, {{"error", *d.detail != '\0' ? d.detail : "-"}})
                               : words::say_both("core", n.key);
  throw std::logic_error(std::string("kernel listing: the build wrote an unknown reason '") + d.reason + "'");
}
}  // namespace

const KernelListing& kernel_listing() {
  static const KernelListing l = [] {
    const KernelListingData& d = kernel_listing_data();
    KernelListing parsed = d.available ? parse_kernel_listing(d.records) : KernelListing{};
    parsed.available = d.available;
    if (!d.available) parsed.why = no_listing_words(d);
    return parsed;
  }();
  return l;
}

std::string listing_sass_arch(const KernelListing& listing, int compute_capability) {
  const auto archs = listing.sass_archs();
  if (archs.empty()) return "";
  const std::string want = "sm_" + std::to_string(compute_capability);
  if (compute_capability > 0 && std::find(archs.begin(), archs.end(), want) != archs.end()) return want;
  // The newest: archs are "sm_NN"; compare the numbers.
  std::string best = archs.front();
  for (const auto& a : archs)
    if (std::atoi(a.c_str() + 3) > std::atoi(best.c_str() + 3)) best = a;
  return best;
}

std::string short_kernel_name(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !d) return mangled;
  std::string s = d.get();
  // Cut the parameter list: the first '(' outside template brackets that is not "(anonymous".
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    else if (s[i] == '>') --depth;
    else if (s[i] == '(' && depth == 0 && s.compare(i, 10, "(anonymous") != 0) {
      s = s.substr(0, i);
      break;
    }
  }
  // Drop the namespaces: everything up to the last "::" outside template brackets.
  depth = 0;
  std::size_t cut = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    else if (s[i] == '>') --depth;
    else if (depth == 0 && s[i] == ':' && s[i + 1] == ':') cut = i + 2;
  }
  return s.substr(cut);
}

namespace {
// Each text once, in the order it first appears, with how often it appears.
std::vector<std::pair<std::string, int>> counted(const std::vector<std::string>& texts) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& t : texts) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == t; });
    if (it == out.end()) out.emplace_back(t, 1);
    else ++it->second;
  }
  return out;
}
}  // namespace

std::string distinct_instructions(const std::vector<std::string>& instructions) {
  std::string s;
  for (const auto& [text, n] : counted(instructions)) s += (s.empty() ? "" : "; ") + text + (n > 1 ? " (x" + std::to_string(n) + ")" : "");
  return s.empty() ? std::string("(none)") : s;
}

const KernelCode* find_kernel(const std::vector<KernelCode>& codes, const std::string& arch,
                              const std::string& lesson_namespace, const std::string& name) {
  // Itanium mangling writes namespace cudasync::<ns> as "8cudasync" + length + name.
  const std::string ns = "8cudasync" + std::to_string(lesson_namespace.size()) + lesson_namespace;
  for (const auto& k : codes)
    if (k.arch == arch && k.function.find(ns) != std::string::npos && short_kernel_name(k.function) == name) return &k;
  return nullptr;
}

std::string opcode_of(const std::string& instruction) {
  const std::string op = instruction.rfind('@', 0) == 0 ? instruction.substr(instruction.find(' ') + 1) : instruction;
  return op.substr(0, op.find(' '));
}

bool has_opcode(const std::vector<std::string>& instructions, const std::string& prefix) {
  return std::any_of(instructions.begin(), instructions.end(),
                     [&](const std::string& i) { return opcode_of(i).rfind(prefix, 0) == 0; });
}

std::vector<std::string> missing_opcodes(const std::vector<std::string>& instructions,
                                         const std::vector<std::string>& must) {
  std::vector<std::string> missing;
  for (const auto& prefix : must)
    if (!has_opcode(instructions, prefix)) missing.push_back(prefix);
  return missing;
}

std::vector<std::pair<std::string, int>> opcode_counts(const std::vector<std::string>& instructions) {
  std::vector<std::string> ops;
  for (const auto& i : instructions) ops.push_back(opcode_of(i));
  return counted(ops);
}

}  // namespace cudasync
