# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# Three plush-server shards behind nutcracker (twemproxy), configured by
# tools/server/nutcracker.example.yml with its ports replaced: sequential
# keys spread evenly over the shards; 100k keys written through the proxy
# land on every shard; one shard killed with kill -9 while writes go on,
# and restarted; every acknowledged key reads back through the proxy.

import os
import pathlib
import socket
import subprocess
import threading
import time

import pytest
import redis

from conftest import Server

EXAMPLE = pathlib.Path(__file__).parents[2] / "nutcracker.example.yml"
EXAMPLE_PORTS = [22121, 6380, 6381, 6382]  # proxy, then the shards


def free_ports(n):
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def write(client, keys, acked):
    """SETs of `keys` (value: the key) in pipelines of 1000; records the
    acknowledged ones in `acked`. Errors (a shard down) are not raised."""
    for start in range(0, len(keys), 1000):
        batch = keys[start:start + 1000]
        pipe = client.pipeline(transaction=False)
        for key in batch:
            pipe.set(key, key)
        try:
            results = pipe.execute(raise_on_error=False)
        except redis.ConnectionError:
            continue
        acked.update(k for k, ok in zip(batch, results) if ok is True)


def read_back(client, keys, seconds=20):
    """MGETs of `keys` through the proxy, retried while a shard is coming
    back; returns the keys whose value is wrong or missing."""
    deadline = time.monotonic() + seconds
    keys = sorted(keys)
    while True:
        wrong = []
        try:
            for start in range(0, len(keys), 1000):
                batch = keys[start:start + 1000]
                values = client.mget(batch)
                wrong += [k for k, v in zip(batch, values) if v != k.encode()]
            return wrong
        except redis.RedisError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


class Cluster:
    """Three shards on fresh pools behind nutcracker, configured by the
    example with its ports replaced; `client` talks to the proxy."""

    def __init__(self, tmp_path):
        self.ports = free_ports(4)  # the proxy's, then the shards'
        config = EXAMPLE.read_text()
        for old, new in zip(EXAMPLE_PORTS, self.ports):
            config = config.replace(f"127.0.0.1:{old}", f"127.0.0.1:{new}")
        (tmp_path / "nutcracker.yml").write_text(config)
        base = "/dev/shm" if os.path.isdir("/dev/shm") else str(tmp_path)
        self.pools = [f"{base}/plush-cluster-{os.getpid()}-{i}.pool"
                      for i in range(3)]
        self.shards = [Server(pool, port=port)
                       for pool, port in zip(self.pools, self.ports[1:])]
        self.proxy = subprocess.Popen(
            ["nutcracker", "-c", str(tmp_path / "nutcracker.yml"),
             "-s", str(free_ports(1)[0]), "-o", str(tmp_path / "nutcracker.log")])
        # RESP2 and no CLIENT SETINFO: the proxy forwards neither HELLO nor
        # CLIENT (and closes the connection of a client that sends them).
        self.client = redis.Redis(port=self.ports[0], protocol=2,
                                  socket_timeout=10, driver_info=None)

    def wait_until_ready(self):
        deadline = time.monotonic() + 10
        while True:
            try:
                self.client.ping()
                return
            except redis.ConnectionError:
                assert time.monotonic() < deadline, "nutcracker did not start"
                time.sleep(0.1)

    def shares(self):
        """How many keys each shard holds."""
        return [shard.client().dbsize() for shard in self.shards]

    def close(self):
        self.proxy.terminate()
        self.proxy.wait(timeout=10)
        for shard in self.shards:
            if shard.running():
                shard.stop()
        for pool in self.pools:
            if os.path.exists(pool):
                os.remove(pool)


@pytest.fixture
def cluster(tmp_path):
    cluster = Cluster(tmp_path)
    try:
        cluster.wait_until_ready()
        yield cluster
    finally:
        cluster.close()


# Sequential keys of several shapes, 10,000 of each: each shard gets a
# third of them, within 20 %. (With twemproxy's fnv1a_64, key:10000 to
# key:19999 gave one shard 4466 of them, and every run of 300 went to one
# shard.)
@pytest.mark.parametrize("shape", ["key:{}", "key:1{:04}", "user:{:08}"])
def test_sequential_keys_spread_evenly(cluster, shape):
    acked = set()
    write(cluster.client, [shape.format(i) for i in range(10_000)], acked)
    assert len(acked) == 10_000
    shares = cluster.shares()
    assert sum(shares) == 10_000
    assert all(abs(share - 10_000 / 3) <= 0.2 * 10_000 / 3
               for share in shares), shares


def test_three_shards_behind_nutcracker(cluster):
    client, shards, pools, ports = (cluster.client, cluster.shards,
                                    cluster.pools, cluster.ports)
    acked = set()
    write(client, [f"key:{i}" for i in range(100_000)], acked)
    assert len(acked) == 100_000
    shares = cluster.shares()
    assert sum(shares) == 100_000
    assert all(share > 100_000 / 3 / 2 for share in shares), shares

    # kill -9 of a shard while more keys are written, before, during
    # and after its downtime.
    stop = threading.Event()
    sent = []

    def write_more():
        for n in range(10**9):
            if stop.is_set():
                return
            batch = [f"more:{n}:{i}" for i in range(1000)]
            sent.extend(batch)
            write(client, batch, acked)

    writer = threading.Thread(target=write_more)
    writer.start()
    time.sleep(0.3)
    shards[1].kill()
    time.sleep(0.3)
    shards[1] = Server(pools[1], port=ports[2], create=False)
    time.sleep(0.3)
    stop.set()
    writer.join()
    failed = len(sent) - len(acked.intersection(sent))
    assert failed > 0, "no write failed: the kill was not under load"

    assert read_back(client, acked) == []
