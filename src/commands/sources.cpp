#include "commands/sources.hpp"

#include <algorithm>
#include <memory>

#include "core/sources.hpp"
#include "core/words/words.hpp"

namespace cudasync::commands {

namespace {

report::Report run_sources(const std::vector<std::string>& keys) {
  report::Report r;
  r.command = "sources";
  r.title = words::core("sources.title");
  for (const Source& src : sources()) {
    if (!keys.empty() && std::find(keys.begin(), keys.end(), src.key) == keys.end()) continue;
    // The work as it is published (its own title and language); what the lessons take, in the run's.
    report::Section s(src.key, src.cite);
    s.fact("authors", words::core("sources.authors"), src.authors);
    s.fact("title", words::core("sources.work-title"), src.title);
    s.fact("published", words::core("sources.published"), src.published);
    if (!src.where.empty()) s.fact("where", words::core("sources.where"), src.where);
    s.fact("used-for", words::core("sources.used-for"), words::core("source." + src.key + ".about"));
    r.sections.push_back(std::move(s));
  }
  return r;
}

}  // namespace

cli::Runner attach_sources(CLI::App& sub) {
  auto keys = std::make_shared<std::vector<std::string>>();
  std::vector<std::string> all;
  for (const Source& s : sources()) all.push_back(s.key);
  sub.add_option("key", *keys, words::core("help.sources.key"))->check(CLI::IsMember(all));
  return [keys](const RunContext&) { return run_sources(*keys); };
}

}  // namespace cudasync::commands
