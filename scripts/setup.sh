#!/usr/bin/env bash
# Installs what cudasync builds with on Debian 12 (and Ubuntu): CMake, Ninja, a C++17 compiler,
# CLI11, spdlog, fmt, nlohmann/json, md4c (explain renders the lesson texts' Markdown, --html too),
# GoogleTest, jq (lesson texts pipe JSON to it) and python3-jsonschema (the tests check every --json
# document against schema/report-v2.json); chromium (the tests load every --html page in a headless
# browser and fail on a console error) with fonts-wqy-microhei (the Chinese texts in its
# screenshots), and tmux (explain at 80x24 through less); for the package tests (ctest -L
# package): dpkg-dev and file (cpack's dpkg-shlibdeps computes the .deb's Depends), man-db (man -l
# renders the page), bash-completion, zsh and fish (each shell loads its completion from where the
# .deb puts it).
# The CUDA toolkit is not installed here: without it the build is model-only.
set -euo pipefail
packages=(cmake ninja-build g++ libcli11-dev libspdlog-dev nlohmann-json3-dev libfmt-dev libmd4c-dev libmd4c-html0-dev
          libgtest-dev jq python3-jsonschema chromium fonts-wqy-microhei tmux dpkg-dev file man-db bash-completion zsh fish)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
