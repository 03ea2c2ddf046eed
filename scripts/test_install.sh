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
rm -f "$work/pool"
"$work/build/consumer_shared" "$work/pool"
# The shared library is found through the consumer's RPATH, and exports
# the public API only.
# (Outputs are captured before grep -q reads them: a grep that stops at its
# match would end the writer with SIGPIPE, which pipefail reports as failure.)
linked=$(ldd "$work/build/consumer_shared")
grep -q "libplush.so.0 => $work/prefix/" <<<"$linked"
# The exported symbols are exactly the allow-list (the public API).
exported=$(nm -D --defined-only "$work/prefix/lib/libplush.so" | c++filt |
  sed -E 's/^[0-9a-f]* [A-Za-z] //' | sort -u)
allowed=$(grep -v '^#' "$root/scripts/libplush_exports.txt" | sort -u)
if [[ "$exported" != "$allowed" ]]; then
  echo "install test: libplush.so exports other symbols than" \
    "scripts/libplush_exports.txt (> exported, < allowed):" >&2
  diff <(echo "$allowed") <(echo "$exported") >&2 || true
  exit 1
fi
# Neither library holds test or benchmark hooks: the testing library's
# code (crash simulator, file-system faults, write-amplification probe,
# broken recovery, ...), nor any symbol whose name has `testing::` or
# `_for_testing` (nm -C, hidden symbols of the static archive included).
"$root/scripts/check_no_test_hooks.sh" "$work/prefix/lib/libplush.so" \
  "$work/prefix/lib/libplush.a"
echo "install test: find_package(plush) consumers (static and shared) built and ran; libplush.so exports the $(wc -l <<<"$exported") symbols of the allow-list; neither libplush.so nor libplush.a holds test hooks"
