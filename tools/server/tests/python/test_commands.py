# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# Every command through a real client (redis-py), in RESP3 (what redis-py
# asks for with HELLO 3) and RESP2, errors with their messages, pipelines,
# binary keys, and the sizes at the limits.

import os
import subprocess

import pytest
import redis

from conftest import CLI, SERVER, PROTOCOLS, error_of, read_until, verify_pool


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_strings(server, protocol):
    r = server.client(protocol=protocol)
    assert r.ping()
    assert r.echo(b"x\r\ny") == b"x\r\ny"
    assert r.get("missing") is None
    assert r.set("k", "v1")
    assert r.get("k") == b"v1"
    assert r.strlen("k") == 2 and r.strlen("missing") == 0
    assert r.set("k", "v2", xx=True)
    assert r.set("new", "v", xx=True) is None
    assert r.set("k", "v3", nx=True) is None
    assert r.set("k", "v4", get=True) == b"v2"
    assert r.setnx("k", "x") is False
    assert r.setnx("fresh", "x") is True
    assert r.getset("fresh", "y") == b"x"
    assert r.getset("unknown", "y") is None
    assert r.mset({"a": "1", "b": "2"})
    assert r.mget("a", "missing", "b") == [b"1", None, b"2"]
    assert r.exists("a", "b", "missing", "a") == 3
    assert r.delete("a", "missing") == 1
    assert r.exists("a") == 0
    assert r.select(0)


def test_increments(server):
    r = server.client()
    assert r.incr("n") == 1
    assert r.incrby("n", 41) == 42
    assert r.decr("n") == 41
    assert r.decrby("n", 1) == 40
    assert r.get("n") == b"40"  # a decimal string, as in Redis
    r.set("n", str(2**63 - 1))
    assert error_of(lambda: r.incr("n")) == "increment or decrement would overflow"
    assert error_of(lambda: r.decrby("n", -(2**63))) == "decrement would overflow"
    r.set("s", "abc")
    assert error_of(lambda: r.incr("s")) == "value is not an integer or out of range"
    assert error_of(lambda: r.incrby("n", "1.5")) == "value is not an integer or out of range"


def test_errors_name_the_problem(server):
    r = server.client()
    assert error_of(lambda: r.execute_command("FROB", "a")) == (
        "unknown command 'FROB', with args beginning with: 'a' ")
    assert error_of(lambda: r.execute_command("GET")) == (
        "wrong number of arguments for 'get' command")
    assert error_of(lambda: r.execute_command("MSET", "a", "1", "b")) == (
        "wrong number of arguments for 'mset' command")
    assert error_of(lambda: r.execute_command("SET", "k", "v", "NX", "XX")) == "syntax error"
    assert error_of(lambda: r.select(1)) == "DB index is out of range"
    assert error_of(lambda: r.execute_command("SCAN", "x")) == "invalid cursor"
    assert error_of(lambda: r.execute_command("CLIENT", "PAUSE", "x")) == (
        "unknown subcommand 'PAUSE'. Try CLIENT HELP.")
    with pytest.raises(redis.AuthenticationError,
                       match="called without any password configured"):
        r.execute_command("AUTH", "x")
    assert error_of(lambda: r.execute_command("SHUTDOWN", "NOW")) == "syntax error"
    # Commands Redis has and this server does not: an error, never a silent
    # success.
    for command in (["EVALSHA", "x", "0"], ["HSET", "h", "f", "v"],
                    ["DUMP", "k"]):
        assert error_of(lambda: r.execute_command(*command)).startswith(
            f"unknown command '{command[0]}'")


def test_binary_keys_and_values(server):
    r = server.client()
    every_byte = bytes(range(256))
    for key in (every_byte, b"", b"\r\n", b"\x00", b"*1\r\n$4\r\nPING\r\n"):
        assert r.set(key, every_byte + key)
        assert r.get(key) == every_byte + key
    assert r.set(b"empty value", b"") and r.get(b"empty value") == b""
    keys = {key for key in r.scan_iter()}
    assert every_byte in keys and b"" in keys and b"\x00" in keys


def test_sizes_at_the_limits(server):
    r = server.client()
    key = b"k" * 1024
    value = bytes(range(256)) * 256  # 64 KiB
    assert r.set(key, value) and r.get(key) == value
    too_long = "InvalidArgument: key of 1025 bytes exceeds the limit of 1024 bytes"
    assert error_of(lambda: r.set(b"k" * 1025, "v")) == too_long
    assert error_of(lambda: r.get(b"k" * 1025)) == too_long
    assert error_of(lambda: r.mset({"a": "1", b"k" * 1025: "v"})) == (
        "InvalidArgument: batch operation 1: key of 1025 bytes exceeds the "
        "limit of 1024 bytes")
    # A value over the limit is dropped as it arrives; the connection goes on.
    assert error_of(lambda: r.set("big", value + b"x")) == (
        "argument of 65537 bytes exceeds the limit of 65536 bytes "
        "(keys up to 1024, values up to 65536)")
    assert r.get("big") is None
    assert r.ping()
    # An MSET is one write batch: up to a payload chunk of the pool (1 MiB
    # by default) of keys and values.
    assert r.mset({f"m{i:02}": value for i in range(15)})
    assert error_of(lambda: r.mset({f"m{i:02}": value for i in range(16)})) == (
        "request arguments exceed the limit of 1048576 bytes")
    assert r.get("m15") is None and r.ping()
    # MGET answers at most 64 MiB.
    pipe = r.pipeline(transaction=False)
    for i in range(1100):
        pipe.set(f"v{i}", value)
    assert all(pipe.execute())
    assert error_of(lambda: r.mget([f"v{i}" for i in range(1100)])) == (
        "the reply would exceed 67108864 bytes: ask for fewer keys at a time")
    assert len(r.mget([f"v{i}" for i in range(1000)])) == 1000


def test_pipelines_answer_in_order(server):
    r = server.client()
    pipe = r.pipeline(transaction=False)
    for i in range(2000):
        pipe.set(f"p{i}", i)
        if i % 100 == 99:
            pipe.get(f"p{i}")  # reads what the SETs before it wrote
            pipe.incr("counter")
            # An error in the middle (not a put: it must not overtake them).
            pipe.execute_command("SET", f"p{i}", "x", "EX", "0")
    results = pipe.execute(raise_on_error=False)
    expected = []
    for i in range(2000):
        expected.append(True)
        if i % 100 == 99:
            expected += [str(i).encode(), i // 100 + 1, "error"]
    assert len(results) == len(expected)
    for got, want in zip(results, expected):
        if want == "error":
            assert isinstance(got, redis.ResponseError)
        else:
            assert got == want


@pytest.mark.parametrize("pool_options", [[], ["--range"]])
def test_scan_returns_every_key_once(start_server, pool_path, pool_options):
    subprocess.run([CLI, "create", pool_path, *pool_options], check=True,
                   capture_output=True)
    r = start_server(create=False).client()
    keys = {f"key:{i}".encode() for i in range(3000)}
    pipe = r.pipeline(transaction=False)
    for k in keys:
        pipe.set(k, b"v")
    pipe.execute()
    r.delete("key:7")
    keys.discard(b"key:7")
    seen = []
    cursor = 0
    while True:
        cursor, batch = r.scan(cursor, count=50)
        seen += batch
        if cursor == 0:
            break
    assert len(seen) == len(set(seen)) and set(seen) == keys
    assert set(r.scan_iter(match="key:1?", count=1000)) == {
        f"key:1{d}".encode() for d in range(10)}
    assert set(r.scan_iter(_type="hash")) == set()
    assert r.dbsize() == len(keys)
    if pool_options:
        # A range pool's cursors name keys the server handed out: any
        # other cursor is refused, not taken for a partition.
        assert error_of(lambda: r.scan(987654321)) == "invalid cursor"


def test_server_commands(server):
    r = server.client()
    r.set("k", "v")
    info = r.info()  # every section, merged
    assert info["plush_backend"] == "file"
    assert info["plush_power_fail_durable"] == 0
    assert info["plush_guarantee"] == (
        "answered writes survive a crash of the server process; power failure "
        "only once SAVE or SHUTDOWN synced them (--sync-writes syncs each "
        "before its reply)")
    assert info["connected_clients"] >= 1
    assert info["db0"]["keys"] >= 1
    assert set(r.info("clients")) == {"connected_clients", "maxclients"}
    assert r.save()
    assert r.info("persistence")["rdb_last_save_time"] > 0
    assert r.command_count() == len(r.command()) > 20
    assert r.client_setname("tester") and r.client_getname() == "tester"
    assert isinstance(r.client_id(), int)


def test_shutdown_closes_the_pool(start_server, pool_path):
    server = start_server()
    r = server.client()
    r.set("kept", "yes")
    r.shutdown()  # answers nothing: the connection just closes
    assert server.process.wait(timeout=30) == 0
    verify_pool(pool_path)
    r = start_server(create=False).client()
    assert r.get("kept") == b"yes"


def file_system_type(path):
    return subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True,
                          text=True, check=True).stdout.strip()


def test_sync_writes_are_refused_for_a_pool_in_memory():
    pool = "/dev/shm/plush-server-sync-writes-test.pool"
    if file_system_type("/dev/shm") != "tmpfs":
        pytest.skip("/dev/shm is not a tmpfs here")
    result = subprocess.run([SERVER, "--pool", pool, "--create", "--port", "0",
                             "--sync-writes"], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 2  # InvalidArgument
    assert result.stderr == (
        "plush-server: InvalidArgument: --sync-writes: /dev/shm is a file "
        "system in memory (tmpfs or ramfs), whose contents do not survive "
        "power loss; put the pool on a disk\n")
    assert not os.path.exists(pool)


def test_sync_writes_on_a_disk(start_server, tmp_path):
    if file_system_type(tmp_path) in ("tmpfs", "ramfs"):
        pytest.skip("the test's temporary directory is in memory here")
    pool = tmp_path / "synced.pool"
    server = start_server("--sync-writes", pool=str(pool))
    r = server.client()
    assert r.set("k", "1")
    assert r.incr("k") == 2
    assert r.mset({"a": "1", "b": "2"})
    assert r.delete("a") == 1
    assert r.setnx("c", "3")
    # A pipeline's writes wait for one sync of their event loop's pass (or
    # a few: the loop may read the pipeline in several passes).
    syncs = r.info("stats")["plush_reply_syncs"]
    pipe = r.pipeline(transaction=False)
    for i in range(1000):
        pipe.set(f"p{i}", i)
        pipe.incr("n")
    assert pipe.execute() == [x for i in range(1000) for x in (True, i + 1)]
    assert r.info("stats")["plush_reply_syncs"] - syncs < 100
    info = r.info()  # every section, merged: no other one contradicts
    assert info["plush_sync_writes"] == 1
    assert info["plush_power_fail_durable"] == 1
    assert info["plush_guarantee"] == (
        "answered writes are synced (msync) before their reply "
        "(--sync-writes); the pool orders its background work with "
        "msyncs: a power failure keeps them")
    server.stop()
    verify_pool(pool)
    r = start_server(pool=str(pool), create=False).client()
    assert r.mget("k", "a", "b", "c") == [b"2", None, b"2", b"3"]
    persistence = r.info("persistence")
    assert persistence["plush_sync_writes"] == 0
    # --sync-writes made the pool power-fail safe, which it stays.
    assert persistence["plush_power_fail_durable"] == 1


def test_resp3_after_hello(server):
    s = server.socket()
    s.sendall(b"HELLO 3\r\n")
    hello = read_until(s, b"$7\r\nmodules\r\n*0\r\n")
    assert hello.startswith(b"%7\r\n$6\r\nserver\r\n$5\r\nplush\r\n")
    assert b"$5\r\nproto\r\n:3\r\n" in hello
    s.sendall(b"GET missing\r\n")
    assert read_until(s, b"\r\n") == b"_\r\n"
    s.sendall(b"HELLO 2\r\n")
    assert read_until(s, b"$7\r\nmodules\r\n*0\r\n").startswith(b"*14\r\n")
    s.sendall(b"GET missing\r\n")
    assert read_until(s, b"\r\n") == b"$-1\r\n"


def test_inline_commands(server):
    s = server.socket()
    s.sendall(b'SET greeting "hello world"\r\nGET greeting\nPING\r\n')
    assert read_until(s, b"+PONG\r\n") == b"+OK\r\n$11\r\nhello world\r\n+PONG\r\n"
