#include "core/coresidency.hpp"

#include "core/words/words.hpp"

#include <algorithm>

namespace cudasync {

std::string Coresidency::text(words::Lang lang) const {
  const std::string from = source.empty() ? "" : " (" + source + ")";
  if (cluster_size > 0)
    return words::say_in(lang, "core", clusters == 1 ? "coresidency.one-cluster" : "coresidency.clusters",
                         {{"clusters", clusters}, {"size", cluster_size}, {"threads", threads},
                          {"limit", limit()}, {"source", from}});
  return words::say_in(lang, "core", blocks_per_sm == 1 ? "coresidency.one-block" : "coresidency.blocks",
                       {{"blocks", blocks_per_sm}, {"threads", threads}, {"sms", sm_count}, {"limit", limit()},
                        {"source", from}});
}

std::optional<std::string> coresidency_refusal(int blocks, const Coresidency& c, const std::string& option,
                                               const std::string& escape) {
  if (blocks <= c.limit()) return std::nullopt;
  const std::string lim = std::to_string(c.limit());
  std::string m = option + " " + std::to_string(blocks) + " is more blocks than can be resident at once: " + c.text(words::Lang::en) +
                  ". A software grid barrier needs every block resident: the " + lim +
                  " resident blocks would spin at the barrier, holding their SMs, for the other " +
                  std::to_string(blocks - c.limit()) +
                  ", which cannot start until a resident block exits: a deadlock; accepted: " + option + " 1.." + lim;
  if (!escape.empty()) m += ", or " + escape;
  return m;
}

Coresidency assumed_coresidency(int threads, int regs_per_thread, const SmLimits& sm, const std::string& source) {
  Coresidency c;
  c.threads = threads;
  c.sm_count = sm.sm_count;
  c.source = source;
  if (threads <= 0) return c;
  const int warps = (threads + 31) / 32;
  const int regs_per_block = std::max(1, regs_per_thread) * warps * 32;
  c.blocks_per_sm = std::min({sm.max_blocks_per_sm, sm.max_threads_per_sm / (warps * 32), sm.regs_per_sm / regs_per_block});
  return c;
}

Coresidency assumed_cluster_coresidency(const Coresidency& blocks, int cluster_size, const std::string& source) {
  Coresidency c = blocks;
  c.source = source;
  c.cluster_size = std::max(1, cluster_size);
  c.clusters = blocks.limit() / c.cluster_size;
  return c;
}

}  // namespace cudasync
