#!/usr/bin/env bash
# Installs the Debian packages Plush needs to build, test and benchmark.
# Idempotent and quiet when everything is present; needs root (or sudo) only
# when something is missing. Used by `make test` and `make bench`.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libpmem2-dev libpmem-dev          # PMDK: mapping, granularity, flush/drain
  libxxhash-dev                     # hashing and checksums
  libgtest-dev libgmock-dev         # unit tests
  clang-14 libclang-rt-14-dev       # libFuzzer for the damaged-pool fuzzer
  librocksdb-dev                    # benchmark peer
  libcuckoo-dev                     # DRAM-only concurrent hash map peer
  libcli11-dev                      # command-line parsing
  nlohmann-json3-dev                # the CLI's JSON input and output
  python3-matplotlib                # benchmark plots
  python3-venv python3-dev          # the Python package (built in a venv)
  libasio-dev                       # plush-server's event loop (standalone Asio)
  redis-tools                       # redis-cli and redis-benchmark: plush-server's tests and benchmark
  redis-server                      # the peer of plush-server's benchmark (scripts/bench_server.sh)
  nutcracker                        # twemproxy: plush-server shards in scripts/test_cluster.sh
)

missing=()
for p in "${packages[@]}"; do
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == *"install ok installed"* ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install_deps: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
