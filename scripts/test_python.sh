#!/usr/bin/env bash
# Tests the Python package the way a user gets it: installs ./python into a
# fresh virtual environment, runs its pytest suite and examples/hello.py.
# Exits non-zero on failure.
#
# Usage: scripts/test_python.sh [BUILD_DIR]   (PYTHON=python3.12 picks
#   another interpreter). With BUILD_DIR, both ways pip builds the
#   extension (python/CMakeLists.txt), each installed and tested in turn:
#     installed  BUILD_DIR installed into a scratch prefix, as after
#                `cmake --install`: the extension links its libplush.so and
#                pip compiles the bindings only;
#     engine     a copy of that install that claims another version, which
#                must not be used: pip compiles the engine too, in
#                BUILD_DIR/python-package-build (the cache that
#                scripts/test_readme.sh shares: only a first run compiles
#                the whole engine).
#   Without BUILD_DIR, pip builds as it would for a user (the engine too,
#   unless CMake finds an install of this version), in a scratch directory.
# Needs the Debian packages of scripts/install_deps.sh and PyPI access for
# the build requirements (scikit-build-core, pybind11) and pytest.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

say() { echo "test_python: $*" >&2; }

"$python" -m venv "$tmp/venv"
venv_python=$tmp/venv/bin/python
"$venv_python" -m pip install --quiet --disable-pip-version-check pytest

# install_package: pip-installs ./python (again) and says how long it took.
install_package() {
  local start=$SECONDS
  "$venv_python" -m pip install --quiet --disable-pip-version-check \
    --force-reinstall --no-deps "$root/python"
  say "pip install took $((SECONDS - start)) s"
}

# The libplush.so the installed extension loads ("" if it has none: the
# engine is compiled into it). Asked from outside the checkout, so that
# python/src is not what is imported.
linked_library() {
  local module
  module=$(cd "$tmp" && "$venv_python" -c 'import plush._plush as m; print(m.__file__)')
  local libraries
  libraries=$(ldd "$module")
  sed -n 's/^\s*libplush\.so\.[0-9]* => \(\S*\) .*/\1/p' <<<"$libraries"
}

run_tests() {
  (cd "$tmp" && "$venv_python" -m pytest -q -p no:cacheprovider "$root/python/tests")
  local greeting
  greeting=$(cd "$tmp" && "$venv_python" "$root/examples/hello.py")
  [[ $greeting == 'greeting: hello!!!' ]]
  say "the tests and examples/hello.py passed"
}

if [[ -n ${1:-} ]]; then
  build=$(cd "$1" && pwd)
  prefix=$tmp/prefix
  cmake --install "$build" --prefix "$prefix" >/dev/null
  version_file=$prefix/lib/cmake/plush/plushConfigVersion.cmake
  version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$version_file")

  say "installing against the installed plush $version ($prefix)"
  CMAKE_PREFIX_PATH=$prefix install_package
  library=$(linked_library)
  if [[ $library != "$prefix/lib/libplush.so.0" ]]; then
    say "FAIL: the extension does not load $prefix/lib/libplush.so.0" \
      "but '${library:-nothing}' (the engine was compiled into it)"
    exit 1
  fi
  run_tests

  # The same install, but one patch version up: CMake's version file would
  # call it compatible, and it must still not be used.
  other=$tmp/other
  cp -a "$prefix" "$other"
  IFS=. read -r major minor patch <<<"$version"
  other_version=$major.$minor.$((patch + 1))
  other_version_file=$other/lib/cmake/plush/plushConfigVersion.cmake
  sed -i "s/^set(PACKAGE_VERSION \"$version\")$/set(PACKAGE_VERSION \"$other_version\")/" \
    "$other_version_file"
  grep -q "^set(PACKAGE_VERSION \"$other_version\")$" "$other_version_file"
  say "installing beside an installed plush $other_version ($other)"
  cache=$build/python-package-build
  mkdir -p "$cache"
  exec 9>"$cache/.lock"  # one user of the cache at a time
  flock 9
  tag=$("$venv_python" -c 'import sys; print("py%d%d" % sys.version_info[:2])')
  SKBUILD_BUILD_DIR=$cache/$tag CMAKE_PREFIX_PATH=$other install_package
  exec 9>&-
  library=$(linked_library)
  if [[ $library == "$other/"* ]]; then
    say "FAIL: the extension loads $library, of plush $other_version"
    exit 1
  elif [[ -n $library ]]; then
    # Another install of this very version, found on CMake's own search
    # path (e.g. /usr/local after the README's install): rightly used.
    say "note: the extension loads $library, an install of plush $version" \
      "found on CMake's search path, so pip compiled no engine here"
  else
    say "the extension holds the engine, as it should"
  fi
  run_tests
else
  say "building and installing the package"
  install_package
  library=$(linked_library)
  say "the extension ${library:+links $library}${library:-holds the engine}"
  run_tests
fi
