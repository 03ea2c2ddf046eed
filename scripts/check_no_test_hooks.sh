#!/usr/bin/env bash
# Checks that libraries hold none of the testing library's code
# (src/testing/): the crash simulator, the file-system faults, the
# write-amplification model and its probe, the PMem cost emulation, the
# crash tests' broken recovery, InternalOptions and OpenDB. libplush
# reaches them only through its seams (media/media_factory.h,
# media/file_ops.h, log/incomplete_batch_hook.h, db/engine_seams.h), which
# the testing library fills. Nor may they hold test hooks of their own:
# no symbol in a `testing` namespace or named `..._for_testing`. Looks at
# every symbol, local ones included (nm -C), by qualified names that only
# that code defines; a library without a symbol table fails (it could hide
# anything).
#
# Usage: scripts/check_no_test_hooks.sh LIBRARY...   (scripts/test_install.sh
# runs it on the installed libplush.so and libplush.a)
set -euo pipefail
[[ $# -gt 0 ]] || { echo "usage: check_no_test_hooks.sh LIBRARY..." >&2; exit 2; }
hooks='plush::media::SimMedia\b|plush::media::SimMediaFactory\b|'
hooks+='plush::media::WriteAmpProbe\b|plush::media::WriteAmpModel\b|'
hooks+='plush::media::EmulatePmemCosts\b|plush::media::InternalMediaFactory\b|'
hooks+='plush::log::ReplayIncompleteBatches\b|plush::InternalOptions\b|'
hooks+='plush::media::FaultInjectingFileOps\b|'
hooks+='plush::OpenDB\(|\bpmem_flush\b|\bpmem_drain\b|'
hooks+='testing::|_for_testing'
status=0
for lib in "$@"; do
  # (Captured before grep reads it: see test_install.sh on SIGPIPE.)
  symbols=$(nm -C "$lib" 2>/dev/null || true)
  if ! grep -q 'plush::pool::Pool::Open(' <<<"$symbols"; then
    echo "check_no_test_hooks: $lib has no symbol table to check" >&2
    status=1
    continue
  fi
  found=$(grep -E "$hooks" <<<"$symbols" | sed -E 's/^[0-9a-f ]* [A-Za-z] //' |
    sort -u || true)
  if [[ -n $found ]]; then
    echo "check_no_test_hooks: $lib holds test hooks or code of the" \
      "testing library (src/testing/):" >&2
    head -20 <<<"$found" >&2
    status=1
  fi
done
exit $status
