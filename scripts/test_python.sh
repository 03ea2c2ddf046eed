#!/usr/bin/env bash
# Tests the Python package the way a user gets it: installs ./python into a
# fresh virtual environment (which builds the extension from this checkout),
# runs its pytest suite and examples/hello.py. Exits non-zero on failure.
#
# Usage: scripts/test_python.sh [BUILD_DIR]   (PYTHON=python3.12 picks
#   another interpreter). With BUILD_DIR the extension links that build's
#   libplush.so, as after `cmake --install`; without, pip builds the engine.
# Needs the Debian packages of scripts/install_deps.sh and PyPI access for
# the build requirements (scikit-build-core, pybind11) and pytest.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$python" -m venv "$tmp/venv"
venv_python=$tmp/venv/bin/python
echo "test_python: building and installing the package" >&2
# With a build directory, the package links that build's libplush.so
# (installed into a scratch prefix) instead of compiling the engine again.
if [[ -n ${1:-} ]]; then
  cmake --install "$1" --prefix "$tmp/prefix" >/dev/null
  export CMAKE_PREFIX_PATH=$tmp/prefix
fi
"$venv_python" -m pip install --quiet --disable-pip-version-check "$root/python"
"$venv_python" -m pip install --quiet --disable-pip-version-check pytest

# Run from outside the checkout, so that the tests import the installed
# package rather than python/src.
cd "$tmp"
"$venv_python" -m pytest -q -p no:cacheprovider "$root/python/tests"
greeting=$("$venv_python" "$root/examples/hello.py")
[[ $greeting == 'greeting: hello!!!' ]]
echo "test_python: examples/hello.py passed" >&2
