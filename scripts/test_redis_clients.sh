#!/usr/bin/env bash
# plush-server with a client no one here wrote (issue 30): the Go module
# tests/redis_clients (its README says what each part does) —
#   * its model's own tests (go test),
#   * a go-redis scripted exchange over RESP2 and RESP3 (exact replies),
#   * a Porcupine linearizability check under kill -9 on a hash and a range
#     pool, with and without --sync-writes, and its control: restarts on an
#     empty pool, which the checker must report as NOT linearizable.
# A history that is not linearizable (the control's included) is drawn by
# Porcupine in BUILD_DIR/redis_clients/<run>.html; the failing run prints
# the path.
#
# Usage: scripts/test_redis_clients.sh [BUILD_DIR]    (default: build/release)
# Needs Go (on PATH or in /usr/local/go) and the Go module proxy, from which
# the first build fetches the pinned modules (go.sum); that build takes
# about a minute, later ones a second. About 20 s; with PLUSH_SOAK=1 (as
# scripts/soak.sh runs it) each configuration is run 10 times for 5 s
# (about 8 minutes: Porcupine's check grows faster than the history).
# Exits non-zero on failure.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-build/release}")
server=$build/tools/server/plush-server
cli=$build/tools/cli/plush
for binary in "$server" "$cli"; do
  if [[ ! -x $binary ]]; then
    echo "test_redis_clients: $binary is not built" >&2
    exit 1
  fi
done
go=$(command -v go || echo /usr/local/go/bin/go)
if [[ ! -x $go ]]; then
  echo "test_redis_clients: no Go toolchain (go on PATH or /usr/local/go/bin/go)" >&2
  exit 1
fi

out=$build/redis_clients
mkdir -p "$out"
echo "test_redis_clients: building tests/redis_clients" >&2
(
  cd "$root/tests/redis_clients"
  "$go" test -buildvcs=false ./internal/...
  "$go" build -buildvcs=false -o "$out/" ./cmd/...
)

# Pools go under the build directory, on disk: --sync-writes refuses tmpfs.
pools=$(mktemp -d "$out/pools.XXXXXX")
trap 'rm -rf "$pools"' EXIT

"$out/exchange" --server "$server" --dir "$pools"

# lin NAME ROUNDS OPTIONS...: ROUNDS runs of the checker, each on new pools.
lin() {
  local name=$1 rounds=$2 round
  shift 2
  for ((round = 1; round <= rounds; round++)); do
    mkdir "$pools/$name"
    rm -f "$out/$name.html"
    "$out/linearizability" --server "$server" --plush "$cli" --dir "$pools/$name" \
      --html "$out/$name.html" "$@"
    rm -rf "${pools:?}/$name"
  done
}
if [[ ${PLUSH_SOAK:-} == 1 ]]; then
  rounds=10 duration=5s
else
  rounds=1 duration=2s
fi
lin hash "$rounds" --duration "$duration"
lin hash-sync "$rounds" --duration "$duration" --sync-writes
lin range "$rounds" --duration "$duration" --range
lin range-sync "$rounds" --duration "$duration" --range --sync-writes
lin control "$rounds" --duration 2s --control
echo "test_redis_clients: passed" >&2
