#!/usr/bin/env bash
# Tests the Python package the way a user gets it: installs ./python into a
# fresh virtual environment (which builds the extension from this checkout),
# runs its pytest suite and examples/hello.py. Exits non-zero on failure.
#
# Usage: scripts/test_python.sh       (PYTHON=python3.12 picks another
#                                      interpreter)
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
"$venv_python" -m pip install --quiet --disable-pip-version-check "$root/python"
"$venv_python" -m pip install --quiet --disable-pip-version-check pytest

# Run from outside the checkout, so that the tests import the installed
# package rather than python/src.
cd "$tmp"
"$venv_python" -m pytest -q -p no:cacheprovider "$root/python/tests"
"$venv_python" "$root/examples/hello.py" | grep -qx 'greeting: hello!!!'
echo "test_python: examples/hello.py passed" >&2
