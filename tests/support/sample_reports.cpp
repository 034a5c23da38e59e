// A report shaped like a GPU run (timeline in ns, litmus counts, a sweep with a baseline, a
// measurement), for the tests of the renderers on a machine without a GPU.
#include "support/sample_reports.hpp"

using I = std::int64_t;

namespace cudasync::report::testing {

Report gpu_shaped() {
  Report r;
  r.command = "test";
  r.title = "pictures <of> a GPU run";
  Section s("pictures", "pictures");
  Table timeline("timeline", "barrier 1");
  timeline.column("block", "block").column("arrive-ns", "arrive ns", Format::ns).column("release-ns", "release ns", Format::ns);
  timeline.row({{"block", I{0}}, {"arrive-ns", I{0}}, {"release-ns", I{900}}});
  timeline.row({{"block", I{1}}, {"arrive-ns", I{400}}, {"release-ns", I{910}}});
  timeline.row({{"block", I{2}}, {"arrive-ns", I{800}}});  // never released
  timeline.row({{"block", I{3}}}, RowMark::inactive);      // never arrived
  timeline.picture = timeline_picture("block", "arrive-ns", "release-ns");
  s.add(timeline);
  Table litmus("outcomes", "litmus");
  litmus.column("test", "test").column("r0", "0", Format::count).column("r1", "1", Format::count).column("allowed", "allowed");
  litmus.row({{"test", std::string("mp")}, {"r0", I{5}}, {"r1", I{199995}}, {"allowed", std::string("1")}}, RowMark::mismatch);
  litmus.picture = outcomes_picture({"test"}, {"0", "1"}, "allowed", {"r0", "r1"});
  s.add(litmus);
  Table sweep("median", "ns by block size");
  sweep.column("row", "barrier").column("p64", "64", Format::ns).column("p128", "128", Format::ns);
  sweep.row({{"row", std::string("__syncthreads()")}, {"p64", 20.5}, {"p128", 24.0}});
  sweep.row({{"row", std::string("bar.sync")}, {"p64", 18.0}, {"p128", NeedsGpu{}}});
  sweep.picture = bars_picture({"row"}, {"p64", "p128"}, "__syncthreads()");
  s.add(sweep);
  s.add(measured("handoff", "ns per handoff", Format::ns, {1000.0, 1100.0, 1059.4}, true));
  r.sections.push_back(s);
  return r;
}

Report with_table(Table t) {
  Report r;
  r.command = "test";
  Section s("s", "s");
  s.add(std::move(t));
  r.sections.push_back(std::move(s));
  return r;
}

}  // namespace cudasync::report::testing
