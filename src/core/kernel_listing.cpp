#include "core/kernel_listing.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>

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
    if (line.size() < 3 || line[1] != ' ' || (line[0] != 'S' && line[0] != 'P')) continue;
    const int k = line[0] == 'S' ? 0 : 1;
    auto& codes = k == 0 ? l.sass : l.ptx;
    const std::string rest = line.substr(2);
    if (rest.rfind("arch ", 0) == 0) {
      arch[k] = rest.substr(5);
    } else if (rest.rfind("fn ", 0) == 0) {
      codes.push_back({arch[k], rest.substr(3), {}});
    } else if (!codes.empty()) {
      codes.back().instructions.push_back(rest);
    }
  }
  return l;
}

const KernelListing& kernel_listing() {
  static const KernelListing l = [] {
    const KernelListingData& d = kernel_listing_data();
    KernelListing parsed = d.available ? parse_kernel_listing(d.records) : KernelListing{};
    parsed.available = d.available;
    parsed.reason = d.reason;
    return parsed;
  }();
  return l;
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

}  // namespace cudasync
