# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# kill -9 of the server under load: every write that was answered must be
# there after a restart (the file back end's guarantee: acknowledged writes
# survive process crashes), every MSET whole or absent, and the pool must
# pass `plush verify`. kill -9 during FLUSHALL: every key or none.

import os
import random
import signal
import threading
import time

import redis

from conftest import verify_pool


class Writer(threading.Thread):
    """Writes until the server dies, remembering what was acknowledged."""

    def __init__(self, server, name):
        super().__init__()
        self.client = server.client()
        self.name_ = name
        self.acked = {}         # key -> value, for every acknowledged put
        self.counter = 0        # the last acknowledged INCR result
        self.msets = []         # every MSET sent: (keys, value, acknowledged)

    def run(self):
        try:
            for i in range(10**9):
                key = f"{self.name_}:{i}"
                self.client.set(key, f"v{i}")
                self.acked[key] = f"v{i}".encode()
                self.counter = self.client.incr(f"{self.name_}:counter")
                if i % 10 == 0:
                    pipe = self.client.pipeline(transaction=False)
                    keys = [f"{self.name_}:p{i}:{j}" for j in range(30)]
                    for k in keys[:20]:
                        pipe.set(k, f"p{i}")
                    pipe.mset({k: f"m{i}" for k in keys[20:]})
                    self.msets.append((keys[20:], f"m{i}".encode(), False))
                    pipe.execute()
                    self.msets[-1] = (keys[20:], f"m{i}".encode(), True)
                    for k in keys[:20]:
                        self.acked[k] = f"p{i}".encode()
        except redis.ConnectionError:
            pass  # the server was killed


# The soak (scripts/soak.sh, PLUSH_SOAK=1) kills the server 500 times, at
# random moments of 0.2 to 0.8 s of writing, on one pool throughout.
SOAK = os.environ.get("PLUSH_SOAK") == "1"
ROUNDS = 500 if SOAK else 2


def check_acknowledged(r, writers):
    """Every acknowledged write of `writers` is there; their counters moved
    by at most the INCR in flight; their MSETs are whole or absent."""
    for w in writers:
        keys = list(w.acked)
        for start in range(0, len(keys), 500):
            batch = keys[start:start + 500]
            assert r.mget(batch) == [w.acked[k] for k in batch]
        counter = int(r.get(f"{w.name_}:counter") or 0)
        assert w.counter <= counter <= w.counter + 1
        for keys, value, acked in w.msets:
            values = r.mget(keys)
            if acked:
                assert values == [value] * len(keys)
            else:  # in flight when the server died: whole or absent
                assert values in ([value] * len(keys), [None] * len(keys))


def test_kill9_loses_no_acknowledged_write(start_server, pool_path):
    rng = random.Random(9)
    earlier = {}  # acknowledged writes of earlier rounds, by key
    earlier_keys = []  # the same keys, to sample from
    acknowledged = 0
    for round_ in range(ROUNDS):
        server = start_server(create=round_ == 0)
        writers = [Writer(server, f"r{round_}w{n}") for n in range(6)]
        for w in writers:
            w.start()
        time.sleep(rng.uniform(0.2, 0.8) if SOAK else 1)
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=30)
        for w in writers:
            w.join(timeout=30)
            assert not w.is_alive()

        restarted = start_server(create=False)
        r = restarted.client()
        written = sum(len(w.acked) for w in writers)
        assert written > 100, "the writers hardly wrote"
        acknowledged += written
        check_acknowledged(r, writers)
        # Later rounds must not lose what earlier ones wrote: a sample.
        sample = rng.sample(earlier_keys, min(2000, len(earlier_keys)))
        assert r.mget(sample) == [earlier[k] for k in sample]
        for w in writers:
            earlier.update(w.acked)
            earlier_keys.extend(w.acked)
        restarted.stop()
        if round_ % 50 == 49 or round_ == ROUNDS - 1:
            verify_pool(pool_path)
    print(f"[kill9-server] {ROUNDS} kill -9 rounds under redis-py load, "
          f"{acknowledged} acknowledged writes checked, 0 lost")


def test_kill9_during_flush_leaves_every_key_or_none(start_server, pool_path):
    """FLUSHALL renames an empty pool over the pool file: killed at any
    moment of it, the server restarts on the old keyspace or the empty one,
    never on part of the keys; in a transaction, with the transaction's
    write after it, or on the old keyspace."""
    keys = {f"k{i}": f"v{i}".encode() for i in range(2000)}
    server = start_server()
    r = server.client()
    r.mset(keys)
    start = time.monotonic()
    assert r.flushall()
    took = time.monotonic() - start
    rng = random.Random(30)
    outcomes = []
    for round_ in range(8):
        r.delete("after")
        r.mset(keys)
        in_transaction = round_ % 2 == 1
        s = server.socket()
        s.sendall(b"MULTI\r\nFLUSHALL\r\nSET after 1\r\nEXEC\r\n"
                  if in_transaction else b"FLUSHALL\r\n")
        # Anywhere from before the flush starts to after it ends.
        time.sleep(rng.uniform(0, took * 1.5))
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=30)
        server = start_server(create=False)
        r = server.client()
        outcomes.append((r.dbsize(), r.get("after")))
        flushed = (1, b"1") if in_transaction else (0, None)
        assert outcomes[-1] in ((len(keys), None), flushed), outcomes
        if outcomes[-1][0] == len(keys):
            assert r.mget(list(keys)) == list(keys.values())
    server.stop()
    verify_pool(pool_path)
    # A flush cut short leaves its new pool, which the next one replaces.
    if os.path.exists(pool_path + ".flushing"):
        os.remove(pool_path + ".flushing")
