# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# FLUSHDB and FLUSHALL as redis-py sends them: every key gone at once,
# writes after them served and kept across a restart, WATCH failing as in
# Redis 7, Redis 7's replies and errors. (kill -9 during a flush:
# test_kill9.py.)

import threading

import pytest
import redis

from conftest import error_of, run_threads, verify_pool


def test_flush_deletes_every_key_and_writes_go_on(start_server, pool_path):
    server = start_server()
    r = server.client()
    for start in range(0, 5000, 500):
        r.mset({f"k{i}": f"v{i}" for i in range(start, start + 500)})
    r.set("ttl", "v", ex=100)
    assert r.dbsize() == 5001
    assert r.flushdb() is True
    assert r.dbsize() == 0
    assert r.get("k1") is None and r.ttl("ttl") == -2
    assert list(r.scan_iter()) == [] and r.keys("*") == []
    assert r.info("keyspace") == {}
    assert r.set("after", "1") and r.incr("after") == 2
    assert r.flushall(asynchronous=True) is True
    assert r.execute_command("FLUSHALL", "SYNC") is True
    assert r.execute_command("FLUSHDB", "sync") is True
    assert r.set("kept", "yes")
    server.stop()
    verify_pool(pool_path)

    restarted = start_server(create=False)
    r = restarted.client()
    assert r.dbsize() == 1 and r.get("kept") == b"yes"
    assert r.get("after") is None and r.get("k1") is None


@pytest.mark.parametrize("command", ["FLUSHDB", "FLUSHALL"])
def test_errors_as_redis_7(server, command):
    r = server.client()
    assert error_of(lambda: r.execute_command(command, "NOW")) == "syntax error"
    assert error_of(lambda: r.execute_command(command, "ASYNC", "SYNC")) == (
        "syntax error")


def test_in_a_transaction_as_redis_7(server):
    r = server.client()
    r.set("a", "1")
    pipe = r.pipeline()  # MULTI ... EXEC
    pipe.set("b", "2").flushdb().set("c", "3").get("b").get("a")
    assert pipe.execute() == [True, True, True, None, None]
    assert r.keys("*") == [b"c"]


def test_watch_of_a_deleted_key_fails_exec(server):
    r = server.client()
    r.set("watched", "1")
    for key, fails in (("watched", True), ("missing", False)):
        with r.pipeline() as pipe:
            pipe.watch(key)
            server.client().flushall()
            pipe.multi()
            pipe.set("x", "1")
            if fails:
                with pytest.raises(redis.WatchError):
                    pipe.execute()
            else:
                assert pipe.execute() == [True]


@pytest.mark.parametrize("sync_writes", [False, True])
def test_flush_under_load(start_server, tmp_path, sync_writes):
    """Clients write (group-committed SETs, INCRs, transactions) and read
    while FLUSHALL runs again and again: every reply is one the keyspace
    could give, before or after a flush, and the pool stays sound."""
    # --sync-writes refuses tmpfs: this pool is on disk.
    pool = tmp_path / "load.pool"
    options = ["--sync-writes"] if sync_writes else []
    server = start_server(*options, pool=pool)
    stop = threading.Event()
    errors = []

    def client(n):
        r = server.client()
        try:
            i = 0
            while not stop.is_set():
                i += 1
                key = f"c{n}:{i % 50}"
                assert r.set(key, "v")
                assert r.get(key) in (b"v", None)  # a flush may come between
                assert r.incr(f"c{n}:counter") >= 1
                pipe = r.pipeline()
                pipe.set(f"c{n}:a", i).set(f"c{n}:b", i).mget(f"c{n}:a", f"c{n}:b")
                assert pipe.execute()[2] == [str(i).encode()] * 2
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(repr(e))

    def flusher():
        r = server.client()
        while not stop.is_set():
            assert r.flushall()
            assert r.info("stats")["total_commands_processed"] > 0

    threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    threads.append(threading.Thread(target=flusher))
    run_threads(threads, stop, 3)
    assert errors == []
    server.stop()
    verify_pool(pool)
