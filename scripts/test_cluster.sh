#!/usr/bin/env bash
# plush-server past one machine (issue #19): three shards behind
# nutcracker (twemproxy), configured by tools/server/nutcracker.example.yml
# with its ports replaced — 10,000 sequential keys of each of three shapes
# spread over the shards, each holding a third within 20 %; 100k keys
# written through the proxy with redis-py land on every shard; a shard
# killed with kill -9 under load and restarted; every acknowledged key read
# back through the proxy (tools/server/tests/python/cluster_scenario.py).
#
# Usage: scripts/test_cluster.sh [BUILD_DIR]    (default: build/release)
# Needs nutcracker (scripts/install_deps.sh) and PyPI access. About 15 s.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/release}
if [[ ! -x $build/tools/server/plush-server ]]; then
  echo "test_cluster: $build/tools/server/plush-server is not built" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "test_cluster: preparing a virtual environment" >&2
source "$root/tools/server/tests/python/venv.sh"
(cd "$tmp" && "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider \
  "$root/tools/server/tests/python/cluster_scenario.py")
