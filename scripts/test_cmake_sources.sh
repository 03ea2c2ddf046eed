#!/usr/bin/env bash
# Every C++ source the repository tracks is named in a CMake file (sources
# are listed, not globbed), so that none is silently left unbuilt: by its
# path relative to the folder of a CMakeLists.txt or *.cmake above it
# (src/'s unit tests: relative to src/, in tests/CMakeLists.txt); a test
# may be named by its stem in a foreach over test names.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
shopt -s nullglob
names() {  # FILE DIR: FILE relative to DIR, and a test's stem
  local rel=$1
  [[ $2 != . ]] && rel=${1#"$2"/}
  echo "$rel"
  [[ $1 == *_test.cc ]] && basename "$1" .cc
  return 0
}
listed_in() {  # FILE DIR [CMAKE_FILE...]
  local file=$1 dir=$2
  shift 2
  local cmake=("$@")
  [[ ${#cmake[@]} == 0 ]] && cmake=("$dir"/CMakeLists.txt "$dir"/*.cmake)
  [[ ${#cmake[@]} == 0 ]] && return 1
  local name
  while read -r name; do
    grep -qE "(^|[[:space:]\"(/])${name//./\\.}([[:space:]\")]|$)" \
      "${cmake[@]}" 2>/dev/null && return 0
  done < <(names "$file" "$dir")
  return 1
}
missing=0
while read -r file; do
  dir=$(dirname "$file")
  found=0
  while :; do
    if listed_in "$file" "$dir"; then found=1; break; fi
    [[ $dir == . ]] && break
    dir=$(dirname "$dir")
  done
  if [[ $found == 0 && $file == src/*_test.cc ]] &&
      listed_in "$file" src tests/CMakeLists.txt; then
    found=1
  fi
  if [[ $found == 0 ]]; then
    echo "test_cmake_sources: $file is in no CMake source list" >&2
    missing=$((missing + 1))
  fi
done < <(git ls-files '*.cc')
if [[ $missing != 0 ]]; then
  echo "test_cmake_sources: $missing source file(s) would not be built" >&2
  exit 1
fi
echo "test_cmake_sources: every tracked .cc file is listed in a CMake file"
