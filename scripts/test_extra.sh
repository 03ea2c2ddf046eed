#!/usr/bin/env bash
# The parts of `make test` that are not ctest binaries: the installed CMake
# package, the Python package, the README's examples, plush-server with
# real Redis clients (redis-py, redis-cli, go-redis), what docs/api.md and
# docs/operations.md quote from the code, the paths docs and comments
# cite, and that every source file is listed in a CMake file.
set -euo pipefail
build=${1:?usage: test_extra.sh BUILD_DIR}
cd "$(dirname "$0")/.."
scripts/test_install.sh "$build"
for extra in scripts/test_python.sh scripts/test_readme.sh scripts/test_docs.sh; do
  if [[ -x $extra ]]; then "$extra" "$build"; fi
done
# plush-server (issue #19): redis-py protocol tests and redis-cli; a cluster behind nutcracker.
scripts/test_server.sh "$build"
# plush-server with go-redis, and its linearizability under kill -9 checked by Porcupine (issue 30).
scripts/test_redis_clients.sh "$build"
scripts/test_cluster.sh "$build"
# Every path a doc or a comment cites exists (no build needed).
scripts/test_citations.sh
# Every source file is built: listed in a CMake file (no build needed).
scripts/test_cmake_sources.sh
