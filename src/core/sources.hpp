#pragma once
// The works the lessons draw on, cited by a short key and listed in full by `cudasync sources`.
// A student has Fan's book, CUDA by Example and the PTX ISA on a shelf or a URL; the lessons cite
// those, never the working notes they were first read from.
#include <string>
#include <string_view>
#include <vector>

namespace cudasync {

struct Source {
  std::string key;        // kebab-case: "fan-ch10"
  std::string cite;       // how a text cites it: "Fan, ch. 10"
  std::string authors;
  std::string title;
  std::string published;  // venue or publisher, and year
  std::string where;      // URL or repository path; "" where none is stable
  // What the lessons take from it is prose, in core's catalog in both languages: source.<key>.about.
};

// Every source, in the order `cudasync sources` lists them.
const std::vector<Source>& sources();
// The source with `key`; std::logic_error for an unknown key (a lesson table's typo).
const Source& source(std::string_view key);

}  // namespace cudasync
