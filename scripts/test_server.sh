#!/usr/bin/env bash
# plush-server end to end (issue #19): the redis-py protocol tests of
# tools/server/tests/python (every command and its errors, pipelines, the
# size limits, binary keys, RESP3, AUTH, bad input and abuse, many clients,
# kill -9 under load with acknowledged-write accounting, transactions whole
# after kill -9), then a redis-cli
# smoke test (commands, mass insertion with --pipe, --scan, FLUSHALL,
# SHUTDOWN, and `plush verify` of the pool it leaves).
#
# Usage: scripts/test_server.sh [BUILD_DIR]    (default: build/release)
# Needs redis-tools (scripts/install_deps.sh) and PyPI access (redis-py,
# pytest). Exits non-zero on failure. About 40 s.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/release}
if [[ ! -x $build/tools/server/plush-server ]]; then
  echo "test_server: $build/tools/server/plush-server is not built" >&2
  exit 1
fi
tmp=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "test_server: preparing a virtual environment" >&2
source "$root/tools/server/tests/python/venv.sh"
(cd "$tmp" && "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider \
  "$root/tools/server/tests/python")

# ---- redis-cli --------------------------------------------------------------
fail() {
  echo "test_server: FAIL: $*" >&2
  exit 1
}
# expect OUTPUT COMMAND...: the command prints exactly OUTPUT.
expect() {
  local want=$1 got
  shift
  got=$("$@" 2>&1) || fail "'$*' exited $?: $got"
  [[ $got == "$want" ]] || fail "'$*' printed '$got', expected '$want'"
}

pool=$tmp/smoke.pool
"$PLUSH_SERVER" --pool "$pool" --create --port 0 2>"$tmp/server.log" &
server_pid=$!
for _ in $(seq 100); do
  port=$(sed -n 's/.* on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$tmp/server.log")
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || fail "the server did not start: $(cat "$tmp/server.log")"
cli() { redis-cli -p "$port" "$@"; }

expect PONG cli ping
expect OK cli set greeting 'hello!!!'
expect 'hello!!!' cli get greeting
expect 1 cli incr visits
expect '' cli get missing
expect "$(printf 'greeting\nvisits')" bash -c "redis-cli -p $port keys '*' | sort"
# Mass insertion: RESP from a file, answered in one stream (redis-cli ends
# it with an ECHO of a random string and counts the replies).
"$tmp/venv/bin/python" -c '
import sys
for i in range(10000):
    k, v = f"key:{i}", f"value {i}"
    sys.stdout.write(f"*3\r\n$3\r\nSET\r\n${len(k)}\r\n{k}\r\n${len(v)}\r\n{v}\r\n")
' >"$tmp/mass.resp"
cli --pipe <"$tmp/mass.resp" >"$tmp/pipe.out" 2>&1 || fail "redis-cli --pipe: $(cat "$tmp/pipe.out")"
grep -q "errors: 0, replies: 10000" "$tmp/pipe.out" || fail "redis-cli --pipe: $(cat "$tmp/pipe.out")"
expect 'value 9999' cli get key:9999
expect 10002 cli dbsize
expect "$(printf 'key:1%d\n' 0 1 2 3 4 5 6 7 8 9)" bash -c "redis-cli -p $port --scan --pattern 'key:1?' | sort"
grep -q '^plush_backend:file' <<<"$(cli info persistence)" || fail "INFO persistence names no back end"
# The pool the server holds, checked through it while it serves.
expect OK "$PLUSH_CLI" verify --online "127.0.0.1:$port"
expect OK "$PLUSH_CLI" verify --online ":$port"
# expect_fail CODE MESSAGE COMMAND...: exits CODE, printing MESSAGE.
expect_fail() {
  local code=$1 want=$2 got status=0
  shift 2
  got=$("$@" 2>&1) || status=$?
  [[ $status == "$code" ]] || fail "'$*' exited $status, expected $code: $got"
  [[ $got == "$want" ]] || fail "'$*' printed '$got', expected '$want'"
}
expect_fail 6 "plush: Busy: pool '$pool' is already open in another process (it holds the pool file's lock)" \
  "$PLUSH_CLI" verify "$pool"
expect_fail 2 "plush: InvalidArgument: server address 'localhost' is not host:port" \
  "$PLUSH_CLI" verify --online localhost
expect_fail 2 "plush: InvalidArgument: verify needs a POOL, or --online HOST:PORT" \
  "$PLUSH_CLI" verify
expect OK cli flushall async
expect 0 cli dbsize
expect OK cli set after-flush 1
cli shutdown >/dev/null 2>&1 || true
wait "$server_pid" || fail "the server exited $? after SHUTDOWN: $(cat "$tmp/server.log")"
server_pid=
grep -q "^plush-server: closed $pool\$" "$tmp/server.log" || fail "no clean close: $(cat "$tmp/server.log")"
expect_fail 5 "plush: IOError: plush-server at 127.0.0.1:$port: Connection refused" \
  "$PLUSH_CLI" verify --online "127.0.0.1:$port"
expect "$pool: OK" "$PLUSH_CLI" verify "$pool"
echo "test_server: redis-cli smoke test passed" >&2
