#!/usr/bin/env bash
# Installs what cudasync needs on Debian 12 or Ubuntu, and nothing more than the level asked for:
#
#   scripts/setup.sh            the tool: CMake, Ninja, g++, CLI11, spdlog, fmt, nlohmann/json,
#                               md4c's headers (explain renders the lesson texts with md4c, loaded
#                               at run time) and SQLite's (the progress database, linked
#                               statically). This is all the README's first command needs.
#   scripts/setup.sh --gpu      the tool and what the GPU suite needs (scripts/gpu.sh): GoogleTest,
#                               jq, and Python's jsonschema (every --json document is checked
#                               against schema/report-v2.json).
#   scripts/setup.sh --tests    the whole test command (scripts/test.sh, CI): the above, and
#                               chromium with a CJK font (the --html pages are loaded in a headless
#                               browser), tmux (explain at 80x24), and for the package tests
#                               dpkg-dev, file, man-db, lintian, bash-completion, zsh and fish.
#
# The CUDA toolkit is not installed here: without nvcc the build is model-only.
#
# A machine without package registries (the lent GPU machines): run
#   scripts/setup.sh --bundle .offline --gpu
# on a machine that has them; it downloads the .deb files of that level and the Python wheels of
# jsonschema into .offline/ (ignored by git). Carried to the other machine, `scripts/setup.sh --gpu`
# there installs from .offline/ whatever apt-get cannot fetch (dpkg -i for the missing packages,
# the wheels unpacked into the system Python's site folder).
set -euo pipefail
cd "$(dirname "$0")/.."

level=tool
bundle=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) level=gpu ;;
    --tests) level=tests ;;
    --bundle) bundle=${2:?--bundle needs a folder}; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "setup: unknown argument '$1' (accepted: --gpu, --tests, --bundle DIR)" >&2; exit 2 ;;
  esac
  shift
done

tool_packages=(cmake ninja-build g++ libcli11-dev libspdlog-dev nlohmann-json3-dev libfmt-dev libmd4c-dev libmd4c-html0-dev libsqlite3-dev)
gpu_packages=(libgtest-dev jq python3-jsonschema)
test_packages=(chromium fonts-wqy-microhei tmux dpkg-dev file man-db lintian bash-completion zsh fish)
packages=("${tool_packages[@]}")
[ "$level" != tool ] && packages+=("${gpu_packages[@]}")
[ "$level" = tests ] && packages+=("${test_packages[@]}")

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# The system Python that the tests' CMake uses (tests/CMakeLists.txt prefers /usr/bin/python3).
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3 || true)
jsonschema_wheels=(jsonschema attrs jsonschema-specifications referencing rpds-py typing-extensions)

if [ -n "$bundle" ]; then
  mkdir -p "$bundle"
  bundle=$(cd "$bundle" && pwd)
  echo "setup: downloading the .deb files of the '$level' level into $bundle"
  # md4c's run-time libraries come along: explain loads them (libmd4c0, libmd4c-html0); and jq's,
  # for the levels that have jq (scripts/gpu.sh judges every run with it).
  debs=()
  for p in "${packages[@]}"; do [ "$p" = python3-jsonschema ] || debs+=("$p"); done
  [ "$level" != tool ] && debs+=(libjq1 libonig5)
  (cd "$bundle" && apt-get download "${debs[@]}" libmd4c0 libmd4c-html0)
  if [ "$level" != tool ]; then
    # Wheels for the GPU machines' Python (3.12, manylinux): Debian's python3-jsonschema is built
    # for Debian's own Python.
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$bundle" "${jsonschema_wheels[@]}"
  fi
  ls "$bundle"
  exit 0
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# A need is met by its package, or for the build tools by the command itself, however it came (the
# GPU machines' images bring CMake 4 and Ninja from elsewhere).
present() {
  case "$1" in
    cmake) command -v cmake >/dev/null &&
           printf '%s\n' 3.25 "$(cmake --version | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')" | sort -V -C ;;
    ninja-build) command -v ninja >/dev/null ;;
    g++) command -v g++ >/dev/null ;;
    jq) command -v jq >/dev/null ;;
    # SQLite's header and static library, from the package or unpacked from it (below).
    libsqlite3-dev) installed "$1" || { [ -e /usr/local/include/sqlite3.h ] && [ -e /usr/local/lib/libsqlite3.a ]; } ;;
    *) installed "$1" ;;
  esac
}
missing=()
for p in "${packages[@]}"; do
  present "$p" || missing+=("$p")
done
# jsonschema counts as present when the system Python imports it, however it got there.
if [ -n "$python" ] && "$python" -c 'import jsonschema' 2>/dev/null; then
  kept=()
  for p in "${missing[@]}"; do [ "$p" = python3-jsonschema ] || kept+=("$p"); done
  missing=("${kept[@]}")
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages of the '$level' level are present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
# A machine without registries fails the update (bounded: a resolver that never answers).
if timeout 180 $sudo apt-get update -qq 2>/dev/null &&
   DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
  exit 0
fi

# No registry here: the bundle carried along (see the top of this file).
offline=.offline
if [ ! -d "$offline" ]; then
  echo "setup: apt-get could not install ${missing[*]}, and there is no $offline/ bundle (make one with" \
       "'scripts/setup.sh --bundle $offline --$level' on a machine with package registries)" >&2
  exit 1
fi
debs=()
for p in "${missing[@]}"; do
  [ "$p" = python3-jsonschema ] && continue
  if [ "$p" = libsqlite3-dev ]; then
    # Debian's -dev package wants Debian's own libsqlite3-0 at exactly its version, which a machine
    # of another release does not have (and dpkg --dry-run does not check): cudasync needs only the
    # header and the static library (linked in, nothing at run time), unpacked beside the system's.
    echo "setup: unpacking SQLite's header and static library from $offline/ into /usr/local"
    unpacked=$(mktemp -d)
    dpkg-deb -x "$offline"/libsqlite3-dev_*.deb "$unpacked"
    $sudo install -D -m 644 "$unpacked/usr/include/sqlite3.h" /usr/local/include/sqlite3.h
    $sudo install -D -m 644 "$unpacked"/usr/lib/*/libsqlite3.a /usr/local/lib/libsqlite3.a
    rm -rf "$unpacked"
    continue
  fi
  for f in "$offline/${p}_"*.deb; do [ -e "$f" ] && debs+=("$f"); done
done
# The run-time libraries the -dev packages depend on, and jq's where jq is missing, where they are
# missing too.
libs=(libmd4c0 libmd4c-html0)
printf '%s\n' "${missing[@]}" | grep -qx jq && libs+=(libjq1 libonig5)
for lib in "${libs[@]}"; do
  installed "$lib" && continue
  for f in "$offline/${lib}_"*.deb; do [ -e "$f" ] && debs+=("$f"); done
done
if [ ${#debs[@]} -gt 0 ]; then
  echo "setup: installing from $offline/: ${debs[*]##*/}"
  # Only what dpkg can configure here: a package whose dependencies this machine lacks is refused
  # before anything is unpacked (--dry-run), so a failed install never leaves a half-installed tool.
  if ! $sudo dpkg --dry-run -i "${debs[@]}" >/dev/null 2>"$offline/dpkg-dry-run.log"; then
    echo "setup: dpkg would not install these here:" >&2
    cat "$offline/dpkg-dry-run.log" >&2
    exit 1
  fi
  $sudo dpkg -i "${debs[@]}" >/dev/null
fi
if printf '%s\n' "${missing[@]}" | grep -qx python3-jsonschema; then
  site=$("$python" -c 'import sys, sysconfig; print(sysconfig.get_path("purelib", "posix_local" if "posix_local" in sysconfig.get_scheme_names() else "posix_prefix"))')
  echo "setup: unpacking the jsonschema wheels from $offline/ into $site"
  $sudo mkdir -p "$site"
  for w in "$offline"/*.whl; do $sudo "$python" -m zipfile -e "$w" "$site"; done
  "$python" -c 'import jsonschema' || { echo "setup: jsonschema still does not import" >&2; exit 1; }
fi
still=()
for p in "${missing[@]}"; do
  [ "$p" = python3-jsonschema ] && continue
  present "$p" || still+=("$p")
done
if [ ${#still[@]} -gt 0 ]; then
  echo "setup: not installed (neither apt-get nor $offline/ had them): ${still[*]}" >&2
  exit 1
fi
echo "setup: done"
