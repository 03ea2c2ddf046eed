# Sourced by scripts/test_server.sh and scripts/test_cluster.sh: a fresh
# virtual environment in $tmp/venv with the client library and pytest,
# and the binaries the tests start (PLUSH_SERVER, PLUSH_CLI) from the
# build directory $build. Needs PyPI access (like scripts/test_python.sh).
python3 -m venv "$tmp/venv"
# redis-py pinned: its defaults (RESP3 through HELLO 3 since 5.x) are part
# of what is tested.
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check redis==8.1.0 pytest
PLUSH_SERVER=$(realpath "$build/tools/server/plush-server")
PLUSH_CLI=$(realpath "$build/tools/cli/plush")
export PLUSH_SERVER PLUSH_CLI
