// The model's step simulation of each protocol (lesson.hpp says what it models), and its two tables:
// the steps, and barrier 1 block by block (--trace).
#include <algorithm>
#include <map>

#include "core/report/text_format.hpp"
#include "techniques/lockfree_barrier/lesson.hpp"

namespace cudasync::lockfree_barrier {

using I = std::int64_t;
using report::Undefined;
using report::Value;

namespace {

// "1 1 1 0" for a few values, else "3 at 1, 1 at 0".
std::string array_text(const std::vector<std::uint32_t>& a) {
  std::string s;
  if (a.size() <= 16) {
    for (std::size_t i = 0; i < a.size(); ++i) s += (i ? " " : "") + std::to_string(a[i]);
    return s;
  }
  std::map<std::uint32_t, int, std::greater<>> count;
  for (auto v : a) ++count[v];
  for (const auto& [v, n] : count) s += (s.empty() ? "" : ", ") + say("step.count-at", {{"count", n}, {"value", v}});
  return s;
}

// cluster: own-cluster's blocks waiting at their cluster's hardware barrier.
enum class St { unstarted, arrive, spin, cluster, done };

struct Sim {
  SimSpec spec;
  SimResult r;
  int N = 0;
  std::vector<St> st;
  std::vector<int> k;  // the barrier a block is at (arrive / spin)
  std::vector<char> resident;
  std::vector<int> arrived_at;  // arrivals per barrier (index k)
  // protocol words
  std::uint32_t counter = 0;
  std::vector<std::uint32_t> in, out, own, old;  // old: grid-sync's value returned by each block's atomic
  std::vector<int> master_done;                  // lock-free: per barrier, whether the master wrote Arrayout
  std::vector<int> cl_k;                         // own-cluster: the barrier at whose cluster barrier a block last arrived
  int cs = 1;                                    // own-cluster: blocks per cluster
  int step = 0;
  int action = 0;  // the blocks' actions so far, in the order the model takes them
  bool progress = false;
  bool skipping = false;
  // the group of rows being merged
  std::vector<int> group;
  std::string group_event;
  int group_barrier = 0;

  bool lockfree() const { return spec.barrier == Barrier::xf_lockfree || spec.barrier == Barrier::xf_lockfree_unrepaired; }
  bool unrepaired_lockfree() const { return spec.barrier == Barrier::xf_lockfree_unrepaired; }
  bool clustered() const { return spec.barrier == Barrier::own_cluster; }
  bool leader(int b) const { return b % cs == 0; }  // rank 0 of its cluster
  int master() const { return unrepaired_lockfree() ? 1 : 0; }
  std::uint32_t goal(int kk) const { return static_cast<std::uint32_t>(kk) * static_cast<std::uint32_t>(N); }

  // own's counters: "counter 4", "counters 2 2".
  std::string counters_text() const {
    return own.size() == 1 ? say("words.counter", {{"values", array_text(own)}})
                           : say("words.counters", {{"values", array_text(own)}});
  }

  std::string state() const {
    switch (spec.barrier) {
      case Barrier::xf_lock:
      case Barrier::xf_lock_unrepaired: return "g_mutex " + std::to_string(counter);
      case Barrier::xf_lockfree:
      case Barrier::xf_lockfree_unrepaired: return "Arrayin " + array_text(in) + " | Arrayout " + array_text(out);
      case Barrier::grid_sync:
        return say("words.counter",
                   {{"values", report::format_value(static_cast<std::int64_t>(counter), report::Format::hex32)}});
      case Barrier::own: return counters_text();
      case Barrier::own_cluster: {
        std::vector<int> waiting;
        for (int b = 0; b < N; ++b)
          if (st[static_cast<std::size_t>(b)] == St::cluster) waiting.push_back(b);
        return counters_text() +
               (waiting.empty() ? "" : " | " + say("step.at-cluster-barrier", {{"blocks", block_ranges(waiting)}}));
      }
      default: return "";
    }
  }

  void flush() {
    if (group.empty()) return;
    const bool shown = group_barrier <= spec.shown_barriers || group_barrier > spec.barriers;
    if (shown) {
      r.steps.push_back({step, block_ranges(group), group_event, state()});
      skipping = false;
    } else if (!skipping) {
      r.steps.push_back({step, "", say("step.later-barriers"), ""});
      skipping = true;
    }
    group.clear();
  }

  // Called before an action changes anything: a different event closes the current row, whose
  // state is then the state after its last action.
  void begin(const std::string& event, int barrier) {
    if (!group.empty() && (event != group_event || barrier != group_barrier)) flush();
    group_event = event;
    group_barrier = barrier;
  }
  void add(int b) { group.push_back(b); }

  // Pure: whether block b, spinning at barrier kk, is released, and why (the transcription's lock-free code
  // releases at once: no thread waits).
  bool released(int b, int kk, std::string& why) const {
    const auto i = static_cast<std::size_t>(b);
    switch (spec.barrier) {
      case Barrier::xf_lock:
        why = "g_mutex " + std::to_string(counter) + (counter >= goal(kk) ? " >= " : " < ") + "goalVal " +
              std::to_string(goal(kk));
        return counter >= goal(kk);
      case Barrier::xf_lock_unrepaired:
        why = "g_mutex " + std::to_string(counter) + (counter == goal(kk) ? " == " : " != ") + "goalVal " +
              std::to_string(goal(kk));
        return counter == goal(kk);
      case Barrier::xf_lockfree:
        why = "Arrayout[b] " + std::string(out[i] == static_cast<std::uint32_t>(kk) ? "== " : "!= ") + std::to_string(kk);
        return out[i] == static_cast<std::uint32_t>(kk);
      case Barrier::xf_lockfree_unrepaired:
        why = say("step.unrepaired-no-wait");
        return true;
      case Barrier::grid_sync: {
        const bool flipped = ((old[i] ^ counter) & 0x80000000u) != 0;
        why = say(flipped ? "step.top-bit-flipped" : "step.top-bit-not-flipped");
        return flipped;
      }
      case Barrier::own:
      case Barrier::own_cluster: {
        bool all = true;
        const int C = static_cast<int>(own.size());
        for (int l = 0; l < C; ++l)
          all = all && own[static_cast<std::size_t>(l)] >=
                           static_cast<std::uint32_t>(kk) * static_cast<std::uint32_t>(own_share(N, C, l));
        why = all ? say(C == 1 ? "step.counter-at-goal" : "step.counters-at-goal")
                  : say(C == 1 ? "step.counter-below-goal" : "step.counters-below-goal");
        return all;
      }
      default: return true;
    }
  }

  std::string arrive_text(int b, int kk) const {
    switch (spec.barrier) {
      case Barrier::xf_lock:
      case Barrier::xf_lock_unrepaired: return "atomicAdd(&g_mutex, 1)";
      case Barrier::xf_lockfree:
      case Barrier::xf_lockfree_unrepaired: return "Arrayin[b] = " + std::to_string(kk);
      case Barrier::grid_sync: return b == 0 ? "atomicAdd(&counter, 0x80000000 - (N-1))" : "atomicAdd(&counter, 1)";
      case Barrier::own:
      case Barrier::own_cluster:
        return own.size() == 1 ? "red.release add(&counter, 1)" : "red.release add(&counter[b % C], 1)";
      default: return "";
    }
  }

  void apply_arrive(int b, int kk) {
    const auto i = static_cast<std::size_t>(b);
    switch (spec.barrier) {
      case Barrier::xf_lock:
      case Barrier::xf_lock_unrepaired: ++counter; break;
      case Barrier::xf_lockfree:
      case Barrier::xf_lockfree_unrepaired: in[i] = static_cast<std::uint32_t>(kk); break;
      case Barrier::grid_sync:
        old[i] = counter;
        counter += b == 0 ? 0x80000000u - static_cast<std::uint32_t>(N - 1) : 1u;
        break;
      case Barrier::own:
      case Barrier::own_cluster: ++own[static_cast<std::size_t>(b % static_cast<int>(own.size()))]; break;
      default: break;
    }
  }

  int master_slots() const { return unrepaired_lockfree() ? std::min(N, spec.threads) : N; }

  // Pure: whether the lock-free master sees every slot it checks at kk.
  bool master_ready(int kk, std::string& why) const {
    const int checked = master_slots();
    std::vector<int> missing;
    for (int i = 0; i < checked; ++i)
      if (in[static_cast<std::size_t>(i)] != static_cast<std::uint32_t>(kk)) missing.push_back(i);
    if (!missing.empty()) {
      why = say("step.master-spins", {{"slots", block_ranges(missing, 3)}, {"goal", kk}});
      return false;
    }
    why = say("step.master-ready", {{"last", checked - 1}, {"goal", kk}});
    if (checked < N) why += say("step.unchecked-slots", {{"first", checked}, {"last", N - 1}});
    return true;
  }

  void apply_master(int kk) {
    for (int i = 0; i < master_slots(); ++i) out[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(kk);
    master_done[static_cast<std::size_t>(kk)] = 1;
  }

  // One action of block b; returns whether it changed anything. own-cluster: every block arrives on
  // the counters; the leader (rank 0) polls them and then arrives at the cluster barrier, where its
  // peers have waited since their arrival; the cluster barrier completes when every block of the
  // cluster is there.
  bool act(int b) {
    const auto i = static_cast<std::size_t>(b);
    if (!resident[i] || st[i] == St::done || st[i] == St::unstarted) return false;
    ++action;
    const int kk = k[i];
    const bool lead = !clustered() || leader(b);
    if (st[i] == St::arrive) {
      const char* key = !clustered() ? "step.arrive" : lead ? "step.arrive-leader" : "step.arrive-peer";
      begin(say(key, {{"barrier", kk}, {"action", arrive_text(b, kk)}}), kk);
      apply_arrive(b, kk);
      ++arrived_at[static_cast<std::size_t>(kk)];
      ++r.arrived[i];
      if (kk == 1) {
        r.arrive_step[i] = step;
        r.arrive_action[i] = action;
      }
      st[i] = lead ? St::spin : St::cluster;
      if (!lead) cl_k[i] = kk;
      add(b);
      return true;
    }
    std::string why;
    if (lockfree() && b == master() && !master_done[static_cast<std::size_t>(kk)]) {
      const bool ready = master_ready(kk, why);
      begin(why, kk);
      if (ready) apply_master(kk);
      add(b);
      return ready;
    }
    if (st[i] == St::spin) {
      if (!released(b, kk, why)) {
        begin(say("step.spin", {{"why", why}}), kk);
        add(b);
        return false;
      }
      if (!clustered()) return pass(b, kk, why);
      begin(say("step.leader-arrives", {{"why", why}}), kk);
      st[i] = St::cluster;
      cl_k[i] = kk;
      add(b);
      return true;
    }
    const int first = b - b % cs, last = std::min(N, first + cs) - 1;
    for (int m = first; m <= last; ++m)
      if (cl_k[static_cast<std::size_t>(m)] < kk) {
        begin(say("step.wait-cluster"), kk);
        add(b);
        return false;
      }
    return pass(b, kk, say("step.cluster-complete", {{"cluster", b / cs}}));
  }

  // Block b leaves barrier kk (why: what released it).
  bool pass(int b, int kk, const std::string& why) {
    const auto i = static_cast<std::size_t>(b);
    if (kk == 1) {
      r.release_step[i] = step;
      r.release_action[i] = action;
    }
    if (arrived_at[static_cast<std::size_t>(kk)] < N && r.early_barrier == 0) {
      r.early_barrier = kk;
      r.early_block = b;
    }
    if (kk < spec.barriers) {
      begin(say("step.pass", {{"why", why}, {"barrier", kk}, {"phase", kk + 1}}), kk);
      st[i] = St::arrive;
      k[i] = kk + 1;
    } else {
      begin(say("step.pass-last", {{"why", why}, {"barrier", kk}}), spec.barriers + 1);
      st[i] = St::done;
    }
    add(b);
    return true;
  }

  void run_software() {
    int next = 0, holding = 0;
    const int max_steps = 64 + 8 * (spec.barriers + 2) * (N / std::max(1, spec.slots) + 2);
    while (step < max_steps) {
      ++step;
      progress = false;
      // 1. free slots take the next blocks, which run their first phase (own-cluster: a whole
      // cluster at once, or none of it)
      std::vector<int> started;
      while (next < N) {
        const int unit = clustered() ? std::min(cs, N - next) : 1;
        if (holding + unit > spec.slots) break;
        for (int j = 0; j < unit; ++j) {
          const auto i = static_cast<std::size_t>(next);
          resident[i] = 1;
          ++holding;
          started.push_back(next);
          st[i] = spec.barriers > 0 ? St::arrive : St::done;
          k[i] = 1;
          begin(say(spec.barriers > 0 ? (clustered() ? "step.start-cluster" : "step.start-slot") : "step.start-exit"),
                spec.barriers > 0 ? 0 : 1);
          add(next);
          ++next;
        }
        progress = true;
      }
      const auto just_started = [&](int b) { return std::find(started.begin(), started.end(), b) != started.end(); };
      // 2. block 0 moves first and may take two actions: it runs ahead of the others
      if (!just_started(0)) {
        if (act(0)) progress = true;
        if (act(0)) progress = true;
      }
      // 3. every other resident block takes one action
      for (int b = 1; b < N; ++b)
        if (!just_started(b) && act(b)) progress = true;
      flush();
      // 4. blocks that finished free their slots
      for (int b = 0; b < N; ++b) {
        const auto i = static_cast<std::size_t>(b);
        if (resident[i] && st[i] == St::done) {
          resident[i] = 0;
          --holding;
        }
      }
      if (std::all_of(st.begin(), st.end(), [](St s) { return s == St::done; }) && next == N) {
        r.completed = true;
        break;
      }
      if (!progress) {
        r.deadlock = true;
        for (int b = 0; b < N; ++b) {
          const auto i = static_cast<std::size_t>(b);
          if (resident[i] && st[i] != St::done) r.spinning.push_back(b);
          if (st[i] == St::unstarted) r.waiting.push_back(b);
        }
        std::string e = say(r.spinning.size() == 1 ? "step.deadlock-one" : "step.deadlock-many",
                            {{"blocks", block_ranges(r.spinning)}});
        if (!r.waiting.empty())
          e += say(clustered() ? "step.waiting-cluster" : "step.waiting-slot", {{"blocks", block_ranges(r.waiting)}});
        std::vector<int> all(static_cast<std::size_t>(N));
        for (int b = 0; b < N; ++b) all[static_cast<std::size_t>(b)] = b;
        r.steps.push_back({step, block_ranges(all), e, state()});
        break;
      }
    }
    r.total_steps = step;
  }

  // Relaunch and graph: each phase is a kernel; its blocks run in waves of `slots` and exit, and
  // the next kernel starts only when the last block of this one has exited.
  void run_relaunch() {
    const int kernels = spec.barriers + 1;
    for (int kk = 1; kk <= kernels; ++kk) {
      int done = 0;
      while (done < N) {
        ++step;
        const int wave = std::min(spec.slots, N - done);
        std::vector<int> blocks;
        for (int b = done; b < done + wave; ++b) blocks.push_back(b);
        done += wave;
        const bool shown = kk <= spec.shown_barriers + 1 || kk == kernels;
        const std::string st_text = say("step.kernel-done", {{"kernel", kk}, {"done", done}, {"blocks", N}});
        if (shown) {
          r.steps.push_back(
              {step, block_ranges(blocks), say("step.kernel-wave", {{"kernel", kk}, {"phase", kk}}), st_text});
          skipping = false;
        } else if (!skipping) {
          r.steps.push_back({step, "", say("step.later-kernels"), ""});
          skipping = true;
        }
      }
      for (int b = 0; b < N; ++b) r.arrived[static_cast<std::size_t>(b)] += kk <= spec.barriers ? 1 : 0;
      if (kk < kernels && (kk <= spec.shown_barriers || kk + 1 == kernels)) {
        ++step;
        r.steps.push_back({step, "", say("step.kernel-ended", {{"kernel", kk}, {"next", kk + 1}, {"barrier", kk}}), ""});
      }
    }
    r.completed = true;
    r.total_steps = step;
  }
};

}  // namespace

SimResult simulate(const SimSpec& s) {
  Sim m;
  m.spec = s;
  m.N = std::max(1, s.blocks);
  m.spec.slots = std::max(1, s.slots);
  m.spec.barriers = std::max(0, s.barriers);
  const auto n = static_cast<std::size_t>(m.N);
  m.st.assign(n, St::unstarted);
  m.k.assign(n, 0);
  m.resident.assign(n, 0);
  m.arrived_at.assign(static_cast<std::size_t>(m.spec.barriers) + 2, 0);
  m.r.arrived.assign(n, 0);
  m.r.arrive_step.assign(n, 0);
  m.r.release_step.assign(n, 0);
  m.r.arrive_action.assign(n, 0);
  m.r.release_action.assign(n, 0);
  if (m.lockfree()) {
    m.in.assign(n, 0);
    m.out.assign(n, 0);
    m.master_done.assign(static_cast<std::size_t>(m.spec.barriers) + 2, 0);
  }
  if (s.barrier == Barrier::grid_sync) m.old.assign(n, 0);
  if (s.barrier == Barrier::own || s.barrier == Barrier::own_cluster)
    m.own.assign(static_cast<std::size_t>(std::clamp(s.own_counters, 1, m.N)), 0);
  if (s.barrier == Barrier::own_cluster) {
    m.cs = std::clamp(s.cluster_size, 1, m.N);
    m.cl_k.assign(n, 0);
  }
  if (s.barrier == Barrier::relaunch || s.barrier == Barrier::graph) {
    m.r.schedule = say("step.schedule-waves", {{"slots", m.spec.slots}});
    m.run_relaunch();
  } else {
    m.r.schedule = say("step.schedule");
    if (m.clustered())
      m.r.schedule += say("step.schedule-clusters",
                          {{"size", m.cs},
                           {"members", m.cs == 1 ? std::string("b") : say("step.members", {{"last", m.cs - 1}})}});
    m.run_software();
  }
  return m.r;
}

report::Table step_table(const SimResult& m) {
  report::Table t("steps", say("steps.title"));
  t.column("step", say("column.step"))
      .column("blocks", say("column.blocks"))
      .column("event", say("column.event"))
      .column("state", say("column.state-after"));
  for (const auto& s : m.steps)
    t.row({{"step", static_cast<I>(s.step)},
           {"blocks", s.blocks.empty() ? Value{Undefined{}} : Value{s.blocks}},
           {"event", s.event},
           {"state", s.state.empty() ? Value{Undefined{}} : Value{s.state}}});
  t.legend.push_back(say("steps.schedule-legend", {{"schedule", m.schedule}}));
  return t;
}

std::optional<report::Table> model_timeline(const SimResult& m) {
  if (std::all_of(m.arrive_step.begin(), m.arrive_step.end(), [](int s) { return s == 0; })) return std::nullopt;
  report::Table t("model-timeline", say("model-timeline.title"));
  t.column("block", say("column.block"))
      .column("arrive", say("model-timeline.arrive"))
      .column("release", say("model-timeline.release"))
      .column("arrive-action", say("model-timeline.arrive-action"))
      .column("release-action", say("model-timeline.release-action"));
  for (std::size_t b = 0; b < m.arrive_step.size(); ++b) {
    const auto when = [](int s) { return s == 0 ? Value{Undefined{}} : Value{static_cast<I>(s)}; };
    t.row({{"block", static_cast<I>(b)},
           {"arrive", when(m.arrive_step[b])},
           {"release", when(m.release_step[b])},
           {"arrive-action", when(m.arrive_action[b])},
           {"release-action", when(m.release_action[b])}});
  }
  // --html draws it by action: within a step the blocks arrive one after another, and the first to
  // arrive waits longest.
  t.picture = report::timeline_picture("block", "arrive-action", "release-action");
  t.legend.push_back(say("model-timeline.legend"));
  t.legend.push_back(say("model-timeline.action-legend"));
  return t;
}

}  // namespace cudasync::lockfree_barrier
