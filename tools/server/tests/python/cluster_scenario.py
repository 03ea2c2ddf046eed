# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# Three plush-server shards behind nutcracker (twemproxy), configured by
# tools/server/nutcracker.example.yml with its ports replaced: 100k keys
# written through the proxy land on every shard; one shard killed with
# kill -9 while writes go on, and restarted; every acknowledged key reads
# back through the proxy.

import os
import pathlib
import socket
import subprocess
import threading
import time

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


def test_three_shards_behind_nutcracker(tmp_path):
    ports = free_ports(4)
    config = EXAMPLE.read_text()
    for old, new in zip(EXAMPLE_PORTS, ports):
        config = config.replace(f"127.0.0.1:{old}", f"127.0.0.1:{new}")
    (tmp_path / "nutcracker.yml").write_text(config)
    base = "/dev/shm" if os.path.isdir("/dev/shm") else str(tmp_path)
    pools = [f"{base}/plush-cluster-{os.getpid()}-{i}.pool" for i in range(3)]
    shards = [Server(pool, port=port) for pool, port in zip(pools, ports[1:])]
    proxy = subprocess.Popen(
        ["nutcracker", "-c", str(tmp_path / "nutcracker.yml"),
         "-s", str(free_ports(1)[0]), "-o", str(tmp_path / "nutcracker.log")])
    try:
        # RESP2 and no CLIENT SETINFO: the proxy forwards neither HELLO nor
        # CLIENT (and closes the connection of a client that sends them).
        client = redis.Redis(port=ports[0], protocol=2, socket_timeout=10,
                             driver_info=None)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.set("ready", "ready")
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline, "nutcracker did not start"
                time.sleep(0.1)

        acked = set()
        write(client, [f"key:{i}" for i in range(100_000)], acked)
        assert len(acked) == 100_000
        shares = [shard.client().dbsize() for shard in shards]
        assert sum(shares) == 100_001  # with "ready"
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
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)
        for shard in shards:
            if shard.running():
                shard.stop()
        for pool in pools:
            if os.path.exists(pool):
                os.remove(pool)
