#!/usr/bin/env bash
# Installs the built library into a scratch prefix and builds and runs a
# separate consumer project against it with find_package(plush).
set -euo pipefail
build=${1:?usage: test_install.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$root/tests/consumer" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer" "$work/pool"
echo "install test: find_package(plush) consumer built and ran"
