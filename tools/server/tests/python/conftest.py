# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# Fixtures of the plush-server protocol tests: a server on a fresh pool,
# started as a user would (the built binary, a free port), and stopped
# with SIGTERM at the end of the test, which must close the pool cleanly.
# Run by scripts/test_server.sh (and cluster_scenario.py, which pytest does not
# collect by its name: scripts/test_cluster.sh runs it), which set
# PLUSH_SERVER and PLUSH_CLI.

import os
import re
import signal
import socket
import subprocess

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

SERVER = os.environ["PLUSH_SERVER"]  # the plush-server binary
CLI = os.environ["PLUSH_CLI"]  # the plush binary
PROTOCOLS = [2, 3]  # RESP2, and RESP3 (what redis-py asks for with HELLO 3)


def error_of(call):
    """The message of the error reply that `call` gets (redis-py drops "ERR ")."""
    with pytest.raises(redis.ResponseError) as error:
        call()
    return str(error.value)


class Server:
    """A plush-server process on `pool`, on `port` (0: one of its choice)."""

    def __init__(self, pool, *options, create=True, port=0):
        self.pool = str(pool)
        args = [SERVER, "--pool", self.pool, "--port", str(port), *options]
        if create:
            args.append("--create")
        self.process = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
        line = self.process.stderr.readline()
        match = re.search(r" on \S+:(\d+) \(", line)
        if match is None:
            self.process.wait(timeout=10)
            raise RuntimeError(f"plush-server did not start: {line}")
        self.port = int(match.group(1))

    def client(self, **options):
        """A redis-py client that does not retry: a test sees every error."""
        options.setdefault("socket_timeout", 10)
        options.setdefault("retry", Retry(NoBackoff(), 0))
        return redis.Redis(port=self.port, **options)

    def socket(self):
        """A raw connection, for what client libraries never send."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        return s

    def stop(self):
        """SIGTERM: the server must close the pool and exit 0."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(timeout=30) == 0, self.process.stderr.read()

    def kill(self):
        self.process.kill()
        self.process.wait(timeout=30)

    def running(self):
        return self.process.poll() is None


def read_until_closed(sock):
    """Everything the server sends until it closes the connection."""
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def read_until(sock, end):
    """What the server sends until it has sent `end` (or closes)."""
    data = b""
    while not data.endswith(end):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def run_threads(threads, stop=None, seconds=0):
    """Starts `threads` and joins them; with `stop` (a threading.Event),
    sets it after `seconds` first: the threads run until it is set."""
    for t in threads:
        t.start()
    if stop is not None:
        stop.wait(seconds)
        stop.set()
    for t in threads:
        t.join()


def verify_pool(pool):
    """`plush verify` on a closed pool."""
    result = subprocess.run([CLI, "verify", str(pool)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture
def pool_path(tmp_path):
    # /dev/shm where there is one: the pools of the default profile are
    # 260 MiB files, cheap on tmpfs.
    base = "/dev/shm" if os.path.isdir("/dev/shm") else str(tmp_path)
    path = os.path.join(base, f"plush-server-test-{os.getpid()}-{tmp_path.name}.pool")
    yield path
    if os.path.exists(path):
        os.remove(path)


@pytest.fixture
def start_server(pool_path):
    """Starts servers (on pool_path unless told otherwise); stops them after."""
    servers = []

    def start(*options, pool=None, create=True, port=0):
        server = Server(pool or pool_path, *options, create=create, port=port)
        servers.append(server)
        return server

    yield start
    for server in servers:
        if server.running():
            server.stop()


@pytest.fixture
def server(start_server):
    return start_server()
