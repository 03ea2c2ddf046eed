# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# kill -9 of the server while clients run transactions: EXEC writes a
# transaction as one batch, so after every restart each transaction is
# there whole or not at all. Each transaction sets a client's N keys to
# the number of its transactions so far and INCRs its counter: after a
# restart the N keys hold one common value, the counter's.

import os
import random
import signal
import threading
import time

import redis

from conftest import verify_pool

KEYS = 100     # keys each transaction sets
WRITERS = 3
ROUNDS = 10    # kills


def keys_of(writer):
    return [f"w{writer}:k{j}" for j in range(KEYS)], f"w{writer}:counter"


class TransactionWriter(threading.Thread):
    """Runs transactions until the server dies: raw RESP, each transaction
    sent in one piece, so that the server, not the client, is the busy one
    (and a kill lands in an EXEC often)."""

    def __init__(self, server, writer):
        super().__init__()
        self.server = server
        self.keys, self.counter = keys_of(writer)
        self.committed = 0  # transactions answered
        self.error = None

    def run(self):
        try:
            n = int(self.server.client().get(self.counter) or 0)
            s = self.server.socket()
            while True:
                n += 1
                request = b"MULTI\r\n" + b"".join(
                    b"SET %s %d\r\n" % (key.encode(), n) for key in self.keys)
                request += b"INCR %s\r\nEXEC\r\n" % self.counter.encode()
                expected = b"+OK\r\n" + b"+QUEUED\r\n" * (KEYS + 1)
                expected += b"*%d\r\n" % (KEYS + 1) + b"+OK\r\n" * KEYS
                expected += b":%d\r\n" % n
                s.sendall(request)
                reply = b""
                while len(reply) < len(expected):
                    chunk = s.recv(65536)
                    if not chunk:
                        return  # the server was killed
                    reply += chunk
                if reply != expected:
                    self.error = f"transaction {n} answered {reply!r}"
                    return
                self.committed += 1
        except (ConnectionError, redis.ConnectionError):
            pass  # the server was killed


def test_kill9_leaves_no_transaction_torn(start_server, pool_path):
    rng = random.Random(30)
    committed = 0
    for round_ in range(ROUNDS):
        server = start_server(create=round_ == 0)
        writers = [TransactionWriter(server, w) for w in range(WRITERS)]
        for w in writers:
            w.start()
        time.sleep(rng.uniform(0.2, 0.6))
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=30)
        for w in writers:
            w.join(timeout=30)
            assert not w.is_alive() and w.error is None, w.error
            committed += w.committed

        restarted = start_server(create=False)
        r = restarted.client()
        for w in range(WRITERS):
            keys, counter = keys_of(w)
            values = r.mget(keys)
            count = r.get(counter)
            assert values == [count] * KEYS, (round_, w, values, count)
        restarted.stop()
    assert committed > 100, "the writers hardly wrote"
    verify_pool(pool_path)
