# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# MULTI, EXEC, DISCARD, WATCH, UNWATCH and RESET through redis-py and raw
# RESP: redis-py's default pipeline (a transaction), optimistic locking
# with WATCH, Redis 7's errors and replies (compared with redis-server
# 7.0.15), which writes touch a watched key, and under clients on several
# event loops: no reader sees half a transaction, no WATCHed update is
# lost.

import threading

import pytest
import redis

from conftest import PROTOCOLS, error_of, read_until, run_threads

EXECABORT = "Transaction discarded because of previous errors."


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_default_pipeline_is_a_transaction(server, protocol):
    r = server.client(protocol=protocol)
    pipe = r.pipeline()  # transaction=True: MULTI ... EXEC
    pipe.set("x", "1").incr("x").mset({"y": "a", "z": "b"}).mget("x", "y", "z")
    assert pipe.execute() == [True, 2, True, [b"2", b"a", b"b"]]
    # A command that fails when EXEC runs it fails alone; the others run.
    pipe.set("n", "a").incr("n").set("after", "1")
    with pytest.raises(redis.ResponseError) as error:
        pipe.execute()
    assert str(error.value) == (
        "Command # 2 (INCRBY n 1) of pipeline caused error: value is not an "
        "integer or out of range")
    assert r.get("after") == b"1"
    # A command refused while queued discards the transaction.
    pipe.set("never", "1").execute_command("NOSUCH", "x")
    with pytest.raises(redis.ResponseError) as error:
        pipe.execute()
    assert str(error.value) == (
        "Command # 2 (NOSUCH x) of pipeline caused error: unknown command "
        "'NOSUCH', with args beginning with: 'x' ")
    assert r.exists("never") == 0


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_watch(server, protocol):
    r = server.client(protocol=protocol)
    other = server.client(protocol=protocol)
    r.set("k", "1")
    pipe = r.pipeline()
    pipe.watch("k")
    other.set("k", "2")  # another client writes the key
    pipe.multi()
    pipe.set("k", "3")
    with pytest.raises(redis.WatchError):
        pipe.execute()
    assert r.get("k") == b"2"
    # Unwritten, the key lets EXEC through; reads do not count as writes.
    pipe.watch("k")
    assert pipe.get("k") == b"2" and other.get("k") == b"2"
    pipe.multi()
    pipe.set("k", "3")
    assert pipe.execute() == [True]
    # redis-py's transaction(): WATCH, read, MULTI, write, EXEC.
    def double(p):
        value = int(p.get("k"))
        p.multi()
        p.set("k", value * 2)
    assert r.transaction(double, "k") == [True]
    assert r.get("k") == b"6"


def read_lines(sock, lines):
    """The next `lines` lines the server sends."""
    data = b""
    while data.count(b"\r\n") < lines:
        chunk = sock.recv(65536)
        assert chunk, data
        data += chunk
    return data


def exec_after(server, write, key=b"k"):
    """EXEC's reply (raw RESP2) when `write` runs between WATCH and MULTI."""
    r = server.client()
    r.set(key, "1")
    s = server.socket()
    s.sendall(b"WATCH " + key + b"\r\n")
    assert read_until(s, b"\r\n") == b"+OK\r\n"
    write(r)
    s.sendall(b"MULTI\r\nEXEC\r\n")
    replies = read_lines(s, 2)
    assert replies.startswith(b"+OK\r\n")
    return replies[len(b"+OK\r\n"):]


def test_which_writes_touch_a_watched_key(server):
    touched, untouched = b"*-1\r\n", b"*0\r\n"
    # As Redis: a write counts whether or not it changes the value.
    assert exec_after(server, lambda r: r.set("k", "1")) == touched
    assert exec_after(server, lambda r: r.mset({"k": "1"})) == touched
    assert exec_after(server, lambda r: r.incrby("k", 0)) == touched
    assert exec_after(server, lambda r: r.incrbyfloat("k", 0)) == touched
    assert exec_after(server, lambda r: r.getset("k", "1")) == touched
    assert exec_after(server, lambda r: r.append("k", "")) == touched
    assert exec_after(server, lambda r: r.setrange("k", 0, "1")) == touched
    assert exec_after(server, lambda r: r.set("k", "2", xx=True)) == touched
    assert exec_after(server, lambda r: r.delete("k")) == touched
    assert exec_after(server, lambda r: r.unlink("k")) == touched
    # ... and nothing that stores nothing.
    assert exec_after(server, lambda r: r.setnx("k", "2")) == untouched
    assert exec_after(server, lambda r: r.set("k", "2", nx=True)) == untouched
    assert exec_after(server, lambda r: r.setrange("k", 0, "")) == untouched
    assert exec_after(server, lambda r: r.delete("other")) == untouched
    assert exec_after(server, lambda r: r.get("k")) == untouched
    assert exec_after(server, lambda r: r.set("other", "1")) == untouched
    # A missing key's creation counts.
    assert exec_after(server, lambda r: (r.delete("new"), r.incr("new")),
                      key=b"new") == touched


def test_a_failed_write_does_not_touch(server):
    r = server.client()
    r.set("k", "x")
    pipe = r.pipeline()
    pipe.watch("k")
    with pytest.raises(redis.ResponseError):
        r.incr("k")  # not an integer: nothing written
    pipe.multi()
    pipe.get("k")
    assert pipe.execute() == [b"x"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_errors_and_replies_as_redis(server, protocol):
    r = server.client(protocol=protocol)
    assert error_of(lambda: r.execute_command("EXEC")) == "EXEC without MULTI"
    assert error_of(lambda: r.execute_command("DISCARD")) == (
        "DISCARD without MULTI")
    assert r.execute_command("UNWATCH") in (b"OK", "OK", True)
    s = server.socket()
    if protocol == 3:
        s.sendall(b"HELLO 3\r\n")
        read_until(s, b"*0\r\n")
    null_array = b"_\r\n" if protocol == 3 else b"*-1\r\n"
    exchanges = [
        (b"MULTI", b"+OK\r\n"),
        (b"MULTI", b"-ERR MULTI calls can not be nested\r\n"),
        (b"WATCH k", b"-ERR WATCH inside MULTI is not allowed\r\n"),
        (b"SET k 1", b"+QUEUED\r\n"),
        (b"UNWATCH", b"+QUEUED\r\n"),  # queued, as in Redis
        (b"GET k", b"+QUEUED\r\n"),
        (b"EXEC", b"*3\r\n+OK\r\n+OK\r\n$1\r\n1\r\n"),
        # Refused while queueing: EXEC answers EXECABORT.
        (b"MULTI", b"+OK\r\n"),
        (b"GET", b"-ERR wrong number of arguments for 'get' command\r\n"),
        (b"SET k 2", b"+QUEUED\r\n"),
        (b"EXEC", b"-EXECABORT " + EXECABORT.encode() + b"\r\n"),
        (b"MULTI", b"+OK\r\n"),
        (b"SAVE", b"-ERR Command not allowed inside a transaction\r\n"),
        (b"EXEC", b"-EXECABORT " + EXECABORT.encode() + b"\r\n"),
        (b"MULTI", b"+OK\r\n"),
        (b"SHUTDOWN", b"-ERR Command not allowed inside a transaction\r\n"),
        (b"DISCARD", b"+OK\r\n"),
        (b"GET k", b"$1\r\n1\r\n"),
        # EXEC's own arity error ends the transaction.
        (b"MULTI", b"+OK\r\n"),
        (b"SET k 3", b"+QUEUED\r\n"),
        (b"EXEC x", b"-EXECABORT Transaction discarded because of: wrong "
                    b"number of arguments for 'exec' command\r\n"),
        (b"EXEC", b"-ERR EXEC without MULTI\r\n"),
        (b"MULTI", b"+OK\r\n"),
        (b"EXEC", b"*0\r\n"),
        # A client's own write touches the keys it watches; DISCARD
        # unwatches them.
        (b"WATCH k", b"+OK\r\n"),
        (b"SET k 4", b"+OK\r\n"),
        (b"MULTI", b"+OK\r\n"),
        (b"EXEC", null_array),
        (b"WATCH k", b"+OK\r\n"),
        (b"SET k 5", b"+OK\r\n"),
        (b"MULTI", b"+OK\r\n"),
        (b"DISCARD", b"+OK\r\n"),
        (b"MULTI", b"+OK\r\n"),
        (b"EXEC", b"*0\r\n"),
        (b"WATCH", b"-ERR wrong number of arguments for 'watch' command\r\n"),
        (b"MULTI x", b"-ERR wrong number of arguments for 'multi' command\r\n"),
    ]
    for request, reply in exchanges:
        s.sendall(request + b"\r\n")
        assert read_lines(s, reply.count(b"\r\n")) == reply, request


def test_reset(start_server, tmp_path):
    password_file = tmp_path / "password"
    password_file.write_text("s3cret\n")
    server = start_server("--requirepass-file", str(password_file))
    s = server.socket()
    for request, reply in [
        (b"RESET", b"+RESET\r\n"),  # allowed before AUTH, as in Redis
        (b"AUTH s3cret", b"+OK\r\n"),
        (b"CLIENT SETNAME me", b"+OK\r\n"),
        (b"HELLO 3", None),
        (b"WATCH k", b"+OK\r\n"),
        (b"MULTI", b"+OK\r\n"),
        (b"SET k 1", b"+QUEUED\r\n"),
        (b"RESET", b"+RESET\r\n"),
        # Unauthenticated again, and held to the small requests of a
        # client without the password.
        (b"GET k", b"-NOAUTH Authentication required.\r\n"),
        (b"AUTH s3cret", b"+OK\r\n"),
        (b"GET k", b"$-1\r\n"),  # RESP2 again; the SET never ran
        (b"CLIENT GETNAME", b"$-1\r\n"),
        (b"EXEC", b"-ERR EXEC without MULTI\r\n"),
    ]:
        s.sendall(request + b"\r\n")
        if reply is None:
            read_until(s, b"*0\r\n")
        else:
            assert read_lines(s, 1) == reply, request
    s.sendall(b"RESET\r\n*11\r\n")
    assert read_until(s, b"length\r\n") == (
        b"+RESET\r\n-ERR Protocol error: invalid multibulk length\r\n")


def test_a_transaction_holds_at_most_64_mib(server):
    r = server.client(socket_timeout=60)
    s = server.socket()
    s.settimeout(60)
    value = b"v" * 65536
    command = b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$65536\r\n" + value + b"\r\n"
    s.sendall(b"MULTI\r\n")
    assert read_until(s, b"\r\n") == b"+OK\r\n"
    # Each SET counts its 65540 bytes and 32 for each of its 3 arguments:
    # 1022 fit in 64 MiB.
    s.sendall(command * 1022)
    assert read_lines(s, 1022) == b"+QUEUED\r\n" * 1022
    s.sendall(command)
    assert read_until(s, b"\r\n") == (
        b"-ERR the transaction would hold more than 67108864 bytes of queued "
        b"commands\r\n")
    s.sendall(b"EXEC\r\n")
    assert read_until(s, b"\r\n") == b"-EXECABORT " + EXECABORT.encode() + b"\r\n"
    assert r.exists("k") == 0


def test_no_reader_sees_half_a_transaction(start_server):
    server = start_server("--threads", "4")
    r = server.client()
    r.mset({"a": 0, "b": 0})
    stop = threading.Event()
    failures = []

    def write():
        pipe = server.client().pipeline()
        while not stop.is_set():
            pipe.incr("a").incr("b").execute()

    def read():
        client = server.client()
        while not stop.is_set():
            a, b = client.mget("a", "b")
            if a != b:
                failures.append((a, b))

    threads = [threading.Thread(target=write) for _ in range(2)]
    threads += [threading.Thread(target=read) for _ in range(4)]
    run_threads(threads, stop, 3)
    assert failures == []
    assert int(r.get("a")) > 0 and r.get("a") == r.get("b")


def test_a_transaction_sees_no_mset_half_way(start_server):
    # EXEC reads a and b between two MSETs, never during one.
    server = start_server("--threads", "4")
    server.client().mset({"a": 0, "b": 0})
    stop = threading.Event()
    failures = []

    def write(thread):
        r = server.client()
        i = 0
        while not stop.is_set():
            i += 1
            r.mset({"a": f"{thread}:{i}", "b": f"{thread}:{i}"})

    def read():
        pipe = server.client().pipeline()
        while not stop.is_set():
            a, b = pipe.get("a").get("b").execute()
            if a != b:
                failures.append((a, b))

    threads = [threading.Thread(target=write, args=(t,)) for t in range(3)]
    threads += [threading.Thread(target=read) for _ in range(3)]
    run_threads(threads, stop, 3)
    assert failures == []


def test_watched_increments_lose_no_update(start_server):
    server = start_server("--threads", "4")
    server.client().set("counter", 0)
    clients, increments = 6, 150

    def increment():
        r = server.client()
        for _ in range(increments):
            def add_one(pipe):
                value = int(pipe.get("counter"))
                pipe.multi()
                pipe.set("counter", value + 1)
            r.transaction(add_one, "counter")

    threads = [threading.Thread(target=increment) for _ in range(clients)]
    run_threads(threads)
    assert int(server.client().get("counter")) == clients * increments


def test_lock_without_timeout_needs_scripting_to_release(server):
    # redis-py's Lock takes the lock with SET NX, which works here, and
    # releases it with a Lua script (EVALSHA), which this server does not
    # run: the release is refused, and the lock stays taken.
    r = server.client()
    lock = r.lock("resource", timeout=None)
    assert lock.acquire(blocking=False)
    assert lock.locked() and lock.owned()
    assert not r.lock("resource", timeout=None).acquire(blocking=False)
    assert error_of(lock.release).startswith("unknown command 'EVALSHA'")
    assert r.get("resource") is not None


def test_watched_keys_take_at_most_64_mib(server):
    s = server.socket()
    s.settimeout(60)
    # Keys of 1024 bytes count 1056 each: 63550 fit in 64 MiB; WATCH them
    # 900 a request (within the 1 MiB a request may carry).
    def watch(first, count):
        keys = [b"%01024d" % i for i in range(first, first + count)]
        request = b"*%d\r\n$5\r\nWATCH\r\n" % (count + 1)
        request += b"".join(b"$1024\r\n" + key + b"\r\n" for key in keys)
        s.sendall(request)
        return read_lines(s, 1)
    for first in range(0, 63000, 900):
        assert watch(first, 900) == b"+OK\r\n"
    assert watch(63000, 550) == b"+OK\r\n"
    assert watch(63550, 1) == (
        b"-ERR the watched keys would take more than 67108864 bytes: UNWATCH "
        b"first\r\n")
    s.sendall(b"UNWATCH\r\n")
    assert read_lines(s, 1) == b"+OK\r\n"
    assert watch(63550, 1) == b"+OK\r\n"
