#include "commands/doctor_report.hpp"

#include <algorithm>
#include <optional>
#include <cctype>
#include <sstream>

#include "core/report/text_format.hpp"
#include "core/nvidia_driver.hpp"

namespace cudasync::commands {

using report::join;

namespace {

using report::Format;

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
  std::string list = ns.size() == 1 ? ns.front() : join({ns.begin(), ns.end() - 1}, ", ") + " and " + ns.back();
  return std::string(ns.size() == 1 ? "exercise " : "exercises ") + list + " (a kernel you write, compiled with NVRTC)";
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
  const std::string branch = minimum_driver_branch(runtime_version > 0 ? runtime_version : 13000);
  return "the NVIDIA driver R" + branch +
         " or newer, which provides libcuda.so.1 (Debian 12: nvidia-driver and libcuda1 from non-free, or "
         "cuda-drivers from NVIDIA's CUDA repository; Ubuntu: nvidia-driver-" +
         branch + ")";
}

std::string toolkit_package(const DoctorFacts& f, const std::string& component) {
  std::string v = f.toolkit_version.empty() ? kMinimumToolkit : f.toolkit_version;
  const auto dot = v.find('.');
  const auto dot2 = dot == std::string::npos ? std::string::npos : v.find('.', dot + 1);
  v = v.substr(0, dot2);
  std::replace(v.begin(), v.end(), '.', '-');
  return "cuda-" + component + "-" + v + " (NVIDIA's CUDA repository) or the CUDA toolkit, with its bin/ on PATH";
}

// "13" of toolkit "13.0.88" (the minimum toolkit where the binary says none).
std::string major_of(const DoctorFacts& f) {
  const std::string v = f.toolkit_version.empty() ? kMinimumToolkit : f.toolkit_version;
  return v.substr(0, v.find('.'));
}

// NVRTC's package: NVIDIA's CUDA repository (and Ubuntu's multiverse) name it cuda-nvrtc-<major>-<minor>.
std::string nvrtc_package(const DoctorFacts& f) {
  std::string v = f.toolkit_version.empty() ? kMinimumToolkit : f.toolkit_version;
  v = v.substr(0, v.find('.', v.find('.') + 1));
  std::replace(v.begin(), v.end(), '.', '-');
  return "cuda-nvrtc-" + v + " (NVIDIA's CUDA repository; any cuda-nvrtc-" + major_of(f) + "-x gives the library)";
}

enum class State { ok, missing, needs_gpu };

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

  const std::string all = "every lesson";
  Piece build{"gpu-backend", "GPU backend in this binary", f.cuda_built_in, "", all, ""};
  build.here = f.cuda_built_in ? "CUDA " + f.toolkit_version + ", code for " + architectures_text(f.cuda_architectures)
                               : "none: a model-only binary";
  if (!f.cuda_built_in)
    build.install = "a CUDA build: the CUDA " + std::string(kMinimumToolkit) +
                    " toolkit (nvcc) and a rebuild (README), or the cudasync .deb";
  out.push_back(build);

  Piece driver{"nvidia-driver", "NVIDIA driver", false, "", all, ""};
  const bool new_enough = driver_new_enough(p.driver_version, p.runtime_version);
  if (!f.driver_found) {
    driver.here = no_driver_message();
    driver.install = driver_install_text(p.runtime_version);
  } else if (f.cuda_built_in && !new_enough) {
    driver.here = (f.driver_release.empty() ? "" : f.driver_release + ", ") + "CUDA " +
                  version_string(p.driver_version) + ": too old; " + old_driver_message(p.driver_version, p.runtime_version);
    driver.install = driver_install_text(p.runtime_version);
  } else {
    driver.ok = true;
    driver.here = (f.driver_release.empty() ? std::string("release unknown") : f.driver_release) +
                  (p.driver_version > 0 ? ", supports CUDA " + version_string(p.driver_version) : "");
  }
  out.push_back(driver);

  Piece gpus{"gpu", "GPUs", gpu != nullptr, "", all, ""};
  if (gpu) {
    std::vector<std::string> names;
    for (const auto& d : p.devices) names.push_back("GPU " + std::to_string(d.index) + " " + d.name + " (cc " + d.cc_string() + ")");
    gpus.here = join(names, ", ");
  } else {
    gpus.here = "none: " + (p.reason.empty() ? std::string("no GPU visible") : p.reason);
    if (f.driver_found && f.cuda_built_in && new_enough) gpus.install = "check CUDA_VISIBLE_DEVICES and nvidia-smi";
  }
  out.push_back(gpus);

  if (gpu && f.cuda_built_in) {
    const std::string code = gpu_code_for(gpu->compute_capability(), f.cuda_architectures);
    Piece c{"gpu-code", "code for GPU " + std::to_string(gpu->index), !code.empty(), "", all, ""};
    c.here = code.empty() ? "none for cc " + gpu->cc_string() + " in " + architectures_text(f.cuda_architectures) : code;
    if (code.empty()) c.install = "a rebuild with CMAKE_CUDA_ARCHITECTURES including " + std::to_string(gpu->compute_capability());
    out.push_back(c);
  }

  auto gpu_feature = [&](const char* id, const char* title, Need need, bool has, const std::string& yes,
                         const std::string& no, const std::string& install) {
    Piece x{id, title, gpu && has, "", used_by(f, need), ""};
    x.here = !gpu ? "" : has ? yes : no;  // "": needs a GPU to tell
    if (gpu && !has) x.install = install;
    out.push_back(x);
  };
  const int cc = gpu ? gpu->compute_capability() : 0;
  gpu_feature("compute-8-0", "compute capability 8.0+", Need::cc80, cc >= 80, "yes (cc " + (gpu ? gpu->cc_string() : "") + ")",
              "no (cc " + (gpu ? gpu->cc_string() : "") + "): those parts are waived", "a GPU of compute capability 8.0 or newer");
  gpu_feature("cooperative-launch", "cooperative launch", Need::cooperative_launch, gpu && gpu->cooperative_launch, "yes",
              "no: this GPU or its mode refuses cooperative launches", "a GPU that supports cooperative launch");
  gpu_feature("clusters", "thread-block clusters", Need::clusters, cc >= 90, "yes (cc 9.0+)",
              "no (cc " + (gpu ? gpu->cc_string() : "") + " < 9.0): those parts are waived",
              "a GPU of compute capability 9.0 or newer (H100, H200, B200)");

  Piece listing{"ptx-sass-listing", "PTX/SASS of the lessons' kernels", f.listing_embedded, "", used_by(f, Need::listing), ""};
  listing.here = f.listing_embedded ? "embedded in this binary (read by cuobjdump at build time)" : f.listing_reason;
  if (!f.listing_embedded) listing.install = "a CUDA build made where cuobjdump is found (" + toolkit_package(f, "cuobjdump") + ")";
  out.push_back(listing);

  auto tool = [&](const char* id, const char* title, const std::optional<std::string>& where, const std::string& uses,
                  const std::string& install) {
    Piece t{id, title, where.has_value(), where ? *where : "not found (PATH, $CUDA_HOME, /usr/local/cuda)", uses, ""};
    if (!where) t.install = install;
    out.push_back(t);
  };
  const std::string by_hand = "by hand";  // any kernel's PTX/SASS; the lessons' own listing is embedded
  tool("cuobjdump", "cuobjdump", f.cuobjdump, by_hand, toolkit_package(f, "cuobjdump"));
  tool("nvdisasm", "nvdisasm", f.nvdisasm, by_hand, toolkit_package(f, "nvdisasm"));
  tool("compute-sanitizer", "compute-sanitizer", f.compute_sanitizer, used_by(f, Need::sanitizer),
       toolkit_package(f, "sanitizer"));
  Piece nvrtc{"nvrtc", "NVRTC (run-time compilation)", f.nvrtc.has_value(), "", used_by(f, Need::nvrtc), ""};
  nvrtc.here = f.nvrtc ? *f.nvrtc : f.nvrtc_missing.empty() ? std::string("not found") : f.nvrtc_missing;
  if (!f.nvrtc && f.cuda_built_in) nvrtc.install = nvrtc_package(f) + " (libnvrtc.so." + major_of(f) + ")";
  out.push_back(nvrtc);

  Piece md4c{"md4c", "md4c (explain renders Markdown)", f.md4c, "", "explain", ""};
  md4c.here = f.md4c ? "libmd4c.so.0, libmd4c-html.so.0" : "not found: explain shows the Markdown as written";
  if (!f.md4c) md4c.install = "libmd4c0 and libmd4c-html0 (Debian, Ubuntu)";
  out.push_back(md4c);

  const bool nccl_ok = f.nccl.has_value() && f.nccl_built_in;
  Piece multi{"multi-gpu", "several GPUs and NCCL", p.devices.size() >= 2 && nccl_ok, "", used_by(f, Need::multi_gpu),
              ""};
  multi.here = std::to_string(p.devices.size()) + " GPU" + (p.devices.size() == 1 ? "" : "s") + ", NCCL " +
               (f.nccl ? "found (" + *f.nccl + ")" : "not found") +
               (f.cuda_built_in && !f.nccl_built_in ? ", not built into this cudasync" : "");
  if (!multi.ok) {
    std::vector<std::string> need;
    if (p.devices.size() < 2) need.push_back(p.devices.empty() ? "two GPUs" : "a second GPU");
    if (!f.nccl) need.push_back("libnccl2 (NVIDIA's CUDA repository)");
    if (f.cuda_built_in && !f.nccl_built_in)
      need.push_back("a cudasync built with nccl.h (libnccl-dev, or a CUDA toolkit that ships NCCL)");
    multi.install = join(need, " and ");
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
    if (piece != ps.end() && !piece->ok) lacks.push_back(piece->title + " for " + what);
  }
  return lacks.empty() ? "nothing" : join(lacks, "; ");
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
    return "the GPU (GPU " + std::to_string(gpu.index) + ", " + gpu.name + ", cc " + gpu.cc_string() +
           "), checked against the reference model";
  }
  const std::vector<Piece> ps = pieces(f);
  const auto first_missing = std::find_if(ps.begin(), ps.end(), [](const Piece& p) { return !p.ok; });
  if (first_missing == ps.end()) return "the CPU reference model";
  return "the CPU reference model (" + first_missing->title + ": " + first_missing->here + ")";
}

report::Report doctor_report(const DoctorFacts& f) {
  report::Report r;
  r.command = "doctor";
  r.title = "cudasync doctor: what this machine has and lacks for the lessons";
  const std::vector<Piece> ps = pieces(f);
  const bool on_gpu = gpu_usable(f);

  report::Section summary("summary", "summary");
  summary.fact("lessons-run-on", "the lessons run on", lessons_run_on(f));
  summary.fact("minimum-driver", "minimum driver for this build",
               f.cuda_built_in ? minimum_driver_text(f.probe.runtime_version) : std::string("none: a model-only binary"));
  summary.fact("minimum-toolkit", "toolkit to build the GPU backend", "CUDA " + std::string(kMinimumToolkit) + " or newer (nvcc)");
  summary.fact("runtime-version", "CUDA runtime in this binary",
               f.cuda_built_in ? "CUDA " + version_string(f.probe.runtime_version) + ", linked statically"
                               : std::string("none (model-only)"));
  std::size_t missing = 0;
  for (const auto& p : ps) missing += p.state() == State::missing ? 1 : 0;
  summary.fact("missing", "pieces missing", static_cast<std::int64_t>(missing), Format::count,
               missing ? "each with what to install, below" : "");
  if (!on_gpu)
    summary.note("every lesson runs on the reference model: lane tables, traces and checks of the model; timings "
                 "and race counts say \"needs a GPU\"");
  r.sections.push_back(std::move(summary));

  report::Section machine("machine", "what this machine has");
  report::Table t("pieces", "each piece the lessons use, and the lessons of this build that use it");
  t.column("piece", "piece").column("ok", "ok").column("used-by", "used by").column("here", "here");
  report::Table install("install", "what to install for each missing piece");
  install.column("piece", "piece").column("install", "to install");
  for (const auto& p : ps) {
    const report::Value ok = p.state() == State::needs_gpu ? report::Value{report::NeedsGpu{}} : report::Value{p.ok};
    const report::Value here = p.here.empty() ? report::Value{report::Undefined{}} : report::Value{p.here};
    t.row({{"piece", p.id}, {"ok", ok}, {"used-by", p.used_by}, {"here", here}});
    if (p.state() == State::missing && !p.install.empty()) install.row({{"piece", p.id}, {"install", p.install}});
  }
  machine.add(std::move(t));
  if (!install.rows.empty()) machine.add(std::move(install));
  r.sections.push_back(std::move(machine));

  report::Section lessons("lessons", "lesson by lesson");
  report::Table l("lessons", "where each lesson runs here and what it lacks");
  l.column("lesson", "lesson").column("runs-on", "runs on").column("lacks", "lacks here");
  for (const auto& id : f.lessons)
    l.row({{"lesson", id}, {"runs-on", std::string(on_gpu ? "GPU + model" : "reference model")},
           {"lacks", lesson_lacks(f, id, ps)}});
  lessons.add(std::move(l));
  r.sections.push_back(std::move(lessons));
  return r;
}

}  // namespace cudasync::commands
