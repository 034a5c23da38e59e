#include "commands/doctor_report.hpp"

#include <algorithm>
#include <optional>
#include <cctype>
#include <sstream>

#include "core/report/text_format.hpp"
#include "core/nvidia_driver.hpp"
#include "core/words/words.hpp"

namespace cudasync::commands {

using report::join;

namespace {

using report::Format;
using words::core;

// What a lesson uses beyond "a GPU": its manifest's needs (lessons/<lesson>/lesson.json, by name,
// DoctorFacts::lesson_needs), and NVRTC for its kernel exercises.
enum class Need { cc80, cooperative_launch, clusters, listing, sanitizer, nvrtc, multi_gpu };

std::optional<Need> need_named(const std::string& name) {
  if (name == "cc80") return Need::cc80;
  if (name == "cooperative-launch") return Need::cooperative_launch;
  if (name == "clusters") return Need::clusters;
  if (name == "listing") return Need::listing;
  if (name == "sanitizer") return Need::sanitizer;
  if (name == "two-gpus") return Need::multi_gpu;
  return std::nullopt;  // a name the manifest check refuses: never here
}

struct Arch {
  int cc = 0;
  bool sass = false, ptx = false;
};

// "75-real;80;90-virtual;90a-real" -> {75 sass}, {80 sass+ptx}, {90 ptx}; "a"/"f" variants run
// only on their own GPU and are left out.
std::vector<Arch> parse_architectures(const std::string& list) {
  std::vector<Arch> out;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ';');) {
    std::size_t digits = 0;
    while (digits < item.size() && std::isdigit(static_cast<unsigned char>(item[digits]))) ++digits;
    if (digits == 0) continue;
    const std::string rest = item.substr(digits);
    if (!rest.empty() && rest[0] != '-') continue;
    Arch a;
    a.cc = std::stoi(item.substr(0, digits));
    a.sass = rest != "-virtual";
    a.ptx = rest != "-real";
    out.push_back(a);
  }
  return out;
}

// "sm_75, sm_80, sm_90, compute_90 PTX": what the binary carries.
std::string architectures_text(const std::string& list) {
  std::vector<std::string> sass, ptx;
  for (const auto& a : parse_architectures(list)) {
    if (a.sass) sass.push_back("sm_" + std::to_string(a.cc));
    if (a.ptx) ptx.push_back("compute_" + std::to_string(a.cc));
  }
  return join(sass, ", ") + (ptx.empty() ? "" : (sass.empty() ? "" : ", ") + join(ptx, ", ") + " PTX");
}

// "exercise 10 (a kernel you write, compiled with NVRTC)"; "exercises 6 and 7 (...)".
std::string kernel_exercises_text(const std::vector<int>& numbers) {
  std::vector<std::string> ns;
  for (const int n : numbers) ns.push_back(std::to_string(n));
  if (ns.size() == 1) return core("doctor.kernel-exercise", {{"numbers", ns.front()}});
  const std::string list = core("doctor.and", {{"list", join({ns.begin(), ns.end() - 1}, ", ")}, {"last", ns.back()}});
  return core("doctor.kernel-exercises", {{"numbers", list}});
}

// The needs of a lesson: the table's rows, and NVRTC for each lesson with kernel exercises.
std::vector<std::pair<Need, std::string>> needs_of(const DoctorFacts& f, const std::string& lesson) {
  std::vector<std::pair<Need, std::string>> out;
  for (const auto& n : f.lesson_needs)
    if (lesson == n.lesson)
      if (const auto need = need_named(n.need)) out.emplace_back(*need, n.part);
  for (const auto& [id, numbers] : f.kernel_exercises)
    if (id == lesson && !numbers.empty()) out.emplace_back(Need::nvrtc, kernel_exercises_text(numbers));
  return out;
}

// "cg-reduce, lockfree-barrier": the lessons of this build that use a piece; "-" for none.
std::string used_by(const DoctorFacts& f, Need need) {
  std::vector<std::string> uses;
  for (const auto& lesson : f.lessons)
    for (const auto& n : needs_of(f, lesson))
      if (n.first == need && std::find(uses.begin(), uses.end(), lesson) == uses.end()) uses.push_back(lesson);
  return uses.empty() ? "-" : join(uses, ", ");
}

const DeviceInfo* first_gpu(const DoctorFacts& f) { return f.probe.devices.empty() ? nullptr : &f.probe.devices.front(); }

std::string driver_install_text(int runtime_version) {
  return core("doctor.driver-install", {{"branch", minimum_driver_branch(runtime_version > 0 ? runtime_version : 13000)}});
}

std::string toolkit_package(const DoctorFacts& f, const std::string& component) {
  std::string v = f.toolkit_version.empty() ? kMinimumToolkit : f.toolkit_version;
  const auto dot = v.find('.');
  const auto dot2 = dot == std::string::npos ? std::string::npos : v.find('.', dot + 1);
  v = v.substr(0, dot2);
  std::replace(v.begin(), v.end(), '.', '-');
  return core("doctor.toolkit-package", {{"component", component}, {"version", v}});
}

// "13" of toolkit "13.0.88" (the minimum toolkit where the binary says none).
std::string major_of(const DoctorFacts& f) {
  const std::string v = f.toolkit_version.empty() ? kMinimumToolkit : f.toolkit_version;
  return v.substr(0, v.find('.'));
}

// NVRTC's package: NVIDIA's CUDA repository (and Ubuntu's multiverse) name it cuda-nvrtc-<major>-<minor>.
std::string nvrtc_install(const DoctorFacts& f) {
  std::string v = f.toolkit_version.empty() ? kMinimumToolkit : f.toolkit_version;
  v = v.substr(0, v.find('.', v.find('.') + 1));
  std::replace(v.begin(), v.end(), '.', '-');
  return core("doctor.nvrtc-install", {{"version", v}, {"major", major_of(f)}});
}

enum class State { ok, missing, needs_gpu };

// A piece's title is the catalog's doctor.piece.<id> (a tool's is its name).
struct Piece {
  std::string id, title;
  bool ok = false;
  std::string here, used_by, install;
  State state() const { return ok ? State::ok : here.empty() ? State::needs_gpu : State::missing; }
};

std::vector<Piece> pieces(const DoctorFacts& f) {
  const GpuProbe& p = f.probe;
  const DeviceInfo* gpu = first_gpu(f);
  std::vector<Piece> out;

  const std::string all = core("doctor.every-lesson");
  Piece build{"gpu-backend", core("doctor.piece.gpu-backend"), f.cuda_built_in, "", all, ""};
  build.here = f.cuda_built_in ? core("doctor.backend-here", {{"version", f.toolkit_version},
                                                              {"archs", architectures_text(f.cuda_architectures)}})
                               : core("doctor.model-only");
  if (!f.cuda_built_in) build.install = core("doctor.backend-install", {{"version", kMinimumToolkit}});
  out.push_back(build);

  Piece driver{"nvidia-driver", core("doctor.piece.nvidia-driver"), false, "", all, ""};
  const bool new_enough = driver_new_enough(p.driver_version, p.runtime_version);
  if (!f.driver_found) {
    driver.here = no_driver_message().in(words::language());
    driver.install = driver_install_text(p.runtime_version);
  } else if (f.cuda_built_in && !new_enough) {
    driver.here = (f.driver_release.empty() ? "" : f.driver_release + ", ") +
                  core("doctor.driver-too-old", {{"version", version_string(p.driver_version)},
                                                 {"why", old_driver_message(p.driver_version, p.runtime_version).in(words::language())}});
    driver.install = driver_install_text(p.runtime_version);
  } else {
    driver.ok = true;
    const std::string release = f.driver_release.empty() ? core("doctor.driver-release-unknown") : f.driver_release;
    driver.here = p.driver_version > 0
                      ? core("doctor.driver-supports", {{"release", release}, {"version", version_string(p.driver_version)}})
                      : release;
  }
  out.push_back(driver);

  Piece gpus{"gpu", core("doctor.piece.gpu"), gpu != nullptr, "", all, ""};
  if (gpu) {
    std::vector<std::string> names;
    for (const auto& d : p.devices) names.push_back("GPU " + std::to_string(d.index) + " " + d.name + " (cc " + d.cc_string() + ")");
    gpus.here = join(names, ", ");
  } else {
    const std::string why = p.reason.in(words::language());
    gpus.here = core("doctor.gpu-none", {{"why", why.empty() ? core("doctor.no-gpu-visible") : why}});
    if (f.driver_found && f.cuda_built_in && new_enough) gpus.install = core("doctor.gpu-install");
  }
  out.push_back(gpus);

  if (gpu && f.cuda_built_in) {
    const std::string code = gpu_code_for(gpu->compute_capability(), f.cuda_architectures);
    Piece c{"gpu-code", core("doctor.piece.gpu-code", {{"index", gpu->index}}), !code.empty(), "", all, ""};
    c.here = code.empty()
                 ? core("doctor.code-none", {{"cc", gpu->cc_string()}, {"archs", architectures_text(f.cuda_architectures)}})
                 : code;
    if (code.empty()) c.install = core("doctor.code-install", {{"cc", gpu->compute_capability()}});
    out.push_back(c);
  }

  auto gpu_feature = [&](const char* id, const char* title, Need need, bool has, const std::string& yes,
                         const std::string& no, const std::string& install) {
    Piece x{id, core(title), gpu && has, "", used_by(f, need), ""};
    x.here = !gpu ? "" : has ? yes : no;  // "": needs a GPU to tell
    if (gpu && !has) x.install = install;
    out.push_back(x);
  };
  const int cc = gpu ? gpu->compute_capability() : 0;
  const std::string cc_text = gpu ? gpu->cc_string() : "";
  gpu_feature("compute-8-0", "doctor.piece.compute-8-0", Need::cc80, cc >= 80, core("doctor.yes-cc", {{"cc", cc_text}}),
              core("doctor.no-cc-waived", {{"cc", cc_text}}), core("doctor.cc80-install"));
  gpu_feature("cooperative-launch", "doctor.piece.cooperative-launch", Need::cooperative_launch, gpu && gpu->cooperative_launch, core("doctor.yes"),
              core("doctor.no-cooperative"), core("doctor.cooperative-install"));
  gpu_feature("clusters", "doctor.piece.clusters", Need::clusters, cc >= 90, core("doctor.yes-clusters"), core("doctor.no-clusters", {{"cc", cc_text}}),
              core("doctor.clusters-install"));

  Piece listing{"ptx-sass-listing", core("doctor.piece.ptx-sass-listing"), f.listing_embedded, "", used_by(f, Need::listing), ""};
  listing.here = f.listing_embedded ? core("doctor.listing-embedded") : f.listing_reason;
  if (!f.listing_embedded) listing.install = core("doctor.listing-install", {{"package", toolkit_package(f, "cuobjdump")}});
  out.push_back(listing);

  auto tool = [&](const char* id, const std::optional<std::string>& where, const std::string& uses,
                  const std::string& install) {
    Piece t{id, id, where.has_value(), where ? *where : core("doctor.not-found-on-path"), uses, ""};
    if (!where) t.install = install;
    out.push_back(t);
  };
  const std::string by_hand = core("doctor.by-hand");  // any kernel's PTX/SASS; the lessons' own listing is embedded
  tool("cuobjdump", f.cuobjdump, by_hand, toolkit_package(f, "cuobjdump"));
  tool("nvdisasm", f.nvdisasm, by_hand, toolkit_package(f, "nvdisasm"));
  tool("compute-sanitizer", f.compute_sanitizer, used_by(f, Need::sanitizer), toolkit_package(f, "sanitizer"));
  Piece nvrtc{"nvrtc", core("doctor.piece.nvrtc"), f.nvrtc.has_value(), "", used_by(f, Need::nvrtc), ""};
  nvrtc.here = f.nvrtc ? *f.nvrtc : f.nvrtc_missing.empty() ? core("doctor.not-found") : f.nvrtc_missing;
  if (!f.nvrtc && f.cuda_built_in) nvrtc.install = nvrtc_install(f);
  out.push_back(nvrtc);

  Piece md4c{"md4c", core("doctor.piece.md4c"), f.md4c, "", "explain", ""};
  md4c.here = f.md4c ? "libmd4c.so.0, libmd4c-html.so.0" : core("doctor.md4c-missing");
  if (!f.md4c) md4c.install = core("doctor.md4c-install");
  out.push_back(md4c);

  const bool nccl_ok = f.nccl.has_value() && f.nccl_built_in;
  Piece multi{"multi-gpu", core("doctor.piece.multi-gpu"), p.devices.size() >= 2 && nccl_ok, "", used_by(f, Need::multi_gpu), ""};
  multi.here = core(p.devices.size() == 1 ? "doctor.multi-here-one" : "doctor.multi-here-many",
                    {{"count", p.devices.size()},
                     {"nccl", f.nccl ? core("doctor.nccl-found", {{"where", *f.nccl}}) : core("doctor.not-found")}}) +
               (f.cuda_built_in && !f.nccl_built_in ? core("doctor.nccl-not-built-in") : "");
  if (!multi.ok) {
    std::vector<std::string> need;
    if (p.devices.size() < 2) need.push_back(core(p.devices.empty() ? "doctor.two-gpus" : "doctor.second-gpu"));
    if (!f.nccl) need.push_back(core("doctor.nccl-install"));
    if (f.cuda_built_in && !f.nccl_built_in) need.push_back(core("doctor.nccl-rebuild"));
    multi.install = need.size() < 2 ? join(need, "")
                                    : core("doctor.and", {{"list", join({need.begin(), need.end() - 1}, ", ")},
                                                          {"last", need.back()}});
  }
  out.push_back(multi);
  return out;
}

std::string lesson_lacks(const DoctorFacts& f, const std::string& lesson, const std::vector<Piece>& ps) {
  const DeviceInfo* gpu = first_gpu(f);
  std::vector<std::string> lacks;
  for (const auto& [need, what] : needs_of(f, lesson)) {
    const char* id = nullptr;
    switch (need) {
      case Need::cc80: id = "compute-8-0"; break;
      case Need::cooperative_launch: id = "cooperative-launch"; break;
      case Need::clusters: id = "clusters"; break;
      case Need::listing: id = "ptx-sass-listing"; break;
      case Need::sanitizer: id = "compute-sanitizer"; break;
      case Need::nvrtc: id = "nvrtc"; break;
      case Need::multi_gpu: id = "multi-gpu"; break;
    }
    const auto piece = std::find_if(ps.begin(), ps.end(), [&](const Piece& p) { return p.id == id; });
    const bool gpu_piece = need == Need::cc80 || need == Need::cooperative_launch || need == Need::clusters;
    if (gpu_piece && !gpu) continue;  // on the model these are "needs a GPU" like every timing
    if (piece != ps.end() && !piece->ok) lacks.push_back(core("doctor.lacks-for", {{"piece", piece->title}, {"what", what}}));
  }
  return lacks.empty() ? core("doctor.nothing") : join(lacks, "; ");
}

}  // namespace

std::string gpu_code_for(int cc, const std::string& cuda_architectures) {
  const std::vector<Arch> archs = parse_architectures(cuda_architectures);
  for (const auto& a : archs)
    if (a.sass && a.cc == cc) return "sm_" + std::to_string(cc) + " SASS";
  // SASS runs on a GPU of the same major version and a minor version at least as high.
  const Arch* best = nullptr;
  for (const auto& a : archs)
    if (a.sass && a.cc / 10 == cc / 10 && a.cc <= cc && (!best || a.cc > best->cc)) best = &a;
  if (best) return "sm_" + std::to_string(best->cc) + " SASS (binary compatible)";
  // PTX is compiled by the driver for any GPU at least as new.
  for (const auto& a : archs)
    if (a.ptx && a.cc <= cc && (!best || a.cc > best->cc)) best = &a;
  if (best) return "compute_" + std::to_string(best->cc) + " PTX, compiled by the driver at first launch";
  return "";
}

bool gpu_usable(const DoctorFacts& f) {
  const DeviceInfo* gpu = first_gpu(f);
  return f.cuda_built_in && gpu && driver_new_enough(f.probe.driver_version, f.probe.runtime_version) &&
         !gpu_code_for(gpu->compute_capability(), f.cuda_architectures).empty();
}

std::string lessons_run_on(const DoctorFacts& f) {
  if (gpu_usable(f)) {
    const DeviceInfo& gpu = *first_gpu(f);
    return core("doctor.runs-on-gpu", {{"index", gpu.index}, {"name", gpu.name}, {"cc", gpu.cc_string()}});
  }
  const std::vector<Piece> ps = pieces(f);
  const auto first_missing = std::find_if(ps.begin(), ps.end(), [](const Piece& p) { return !p.ok; });
  if (first_missing == ps.end()) return core("doctor.runs-on-model");
  return core("doctor.runs-on-model-because", {{"piece", first_missing->title}, {"here", first_missing->here}});
}

report::Report doctor_report(const DoctorFacts& f) {
  report::Report r;
  r.command = "doctor";
  r.title = core("doctor.title");
  const std::vector<Piece> ps = pieces(f);
  const bool on_gpu = gpu_usable(f);

  report::Section summary("summary", core("doctor.summary"));
  summary.fact("lessons-run-on", core("doctor.runs-on"), lessons_run_on(f));
  summary.fact("minimum-driver", core("doctor.minimum-driver"),
               f.cuda_built_in ? minimum_driver_text(f.probe.runtime_version) : core("doctor.model-only"));
  summary.fact("minimum-toolkit", core("doctor.minimum-toolkit"), core("doctor.toolkit-or-newer", {{"version", kMinimumToolkit}}));
  summary.fact("runtime-version", core("doctor.runtime"),
               f.cuda_built_in ? core("doctor.runtime-static", {{"version", version_string(f.probe.runtime_version)}})
                               : core("doctor.runtime-none"));
  std::size_t missing = 0;
  for (const auto& p : ps) missing += p.state() == State::missing ? 1 : 0;
  summary.fact("missing", core("doctor.missing"), static_cast<std::int64_t>(missing), Format::count,
               missing ? core("doctor.missing-note") : "");
  if (!on_gpu) summary.note(core("doctor.model-note"));
  r.sections.push_back(std::move(summary));

  report::Section machine("machine", core("doctor.machine"));
  report::Table t("pieces", core("doctor.pieces"));
  t.column("piece", core("doctor.piece")).column("ok", core("doctor.ok")).column("used-by", core("doctor.used-by")).column("here", core("doctor.here"));
  report::Table install("install", core("doctor.install"));
  install.column("piece", core("doctor.piece")).column("install", core("doctor.to-install"));
  for (const auto& p : ps) {
    const report::Value ok = p.state() == State::needs_gpu ? report::Value{report::NeedsGpu{}} : report::Value{p.ok};
    const report::Value here = p.here.empty() ? report::Value{report::Undefined{}} : report::Value{p.here};
    t.row({{"piece", p.id}, {"ok", ok}, {"used-by", p.used_by}, {"here", here}});
    if (p.state() == State::missing && !p.install.empty()) install.row({{"piece", p.id}, {"install", p.install}});
  }
  machine.add(std::move(t));
  if (!install.rows.empty()) machine.add(std::move(install));
  r.sections.push_back(std::move(machine));

  report::Section lessons("lessons", core("doctor.lessons"));
  report::Table l("lessons", core("doctor.lessons-table"));
  l.column("lesson", core("doctor.lesson")).column("runs-on", core("doctor.lesson-runs-on")).column("lacks", core("doctor.lacks"));
  for (const auto& id : f.lessons)
    l.row({{"lesson", id}, {"runs-on", core(on_gpu ? "doctor.gpu-and-model" : "doctor.reference-model")},
           {"lacks", lesson_lacks(f, id, ps)}});
  lessons.add(std::move(l));
  r.sections.push_back(std::move(lessons));
  return r;
}

}  // namespace cudasync::commands
