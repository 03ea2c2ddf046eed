# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# Bad input and abuse: passwords, limits on clients, idle time and request
# sizes, malformed RESP, clients that leave mid-request or stop reading,
# and many clients at once.

import socket
import threading
import time

import pytest
import redis

from conftest import read_until, read_until_closed

NOAUTH = b"-NOAUTH Authentication required.\r\n"


def connected_clients(server):
    return server.client().info("clients")["connected_clients"] - 1


def wait_for(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_auth(start_server, tmp_path):
    password_file = tmp_path / "password"
    password_file.write_text("s3cret\n")
    server = start_server("--requirepass-file", str(password_file))
    s = server.socket()
    s.sendall(b"GET k\r\n")
    assert read_until(s, b"\r\n") == NOAUTH
    s.sendall(b"FROB\r\n")  # not even whether a command exists
    assert read_until(s, b"\r\n") == NOAUTH
    s.sendall(b"AUTH nope\r\n")
    assert read_until(s, b"\r\n") == (
        b"-WRONGPASS invalid username-password pair or user is disabled.\r\n")
    s.sendall(b"AUTH s3cret\r\nGET k\r\n")
    assert read_until(s, b"$-1\r\n") == b"+OK\r\n$-1\r\n"
    # A client library with the password.
    assert server.client(password="s3cret").set("k", "v")
    assert server.client(username="default", password="s3cret").get("k") == b"v"
    with pytest.raises(redis.AuthenticationError):
        server.client(password="wrong").ping()
    # Before AUTH, requests are held small: more than 10 arguments, or one
    # of more than 16 KiB, ends the connection.
    s = server.socket()
    s.sendall(b"*11\r\n")
    assert read_until_closed(s) == b"-ERR Protocol error: invalid multibulk length\r\n"
    s = server.socket()
    s.sendall(b"*2\r\n$4\r\nAUTH\r\n$20000\r\n")
    assert read_until_closed(s) == b"-ERR Protocol error: invalid bulk length\r\n"


def test_maxclients(start_server):
    server = start_server("--maxclients", "3")
    held = [server.socket() for _ in range(3)]
    for s in held:
        s.sendall(b"PING\r\n")
        assert read_until(s, b"\r\n") == b"+PONG\r\n"
    extra = server.socket()
    assert read_until_closed(extra) == b"-ERR max number of clients reached\r\n"
    held.pop().close()

    def admitted():
        try:
            return server.client().ping()
        except redis.ConnectionError:  # the server did not see the close yet
            return False

    wait_for(admitted)


def test_idle_clients_are_closed(start_server):
    server = start_server("--idle-timeout", "1")
    idle = server.socket()
    half = server.socket()
    half.sendall(b"*2\r\n$3\r\nGET\r\n")  # a request that never ends
    busy = server.client()
    start = time.monotonic()
    while time.monotonic() - start < 2.5:
        assert busy.ping()  # active clients stay
        time.sleep(0.2)
    idle.settimeout(5)
    half.settimeout(5)
    assert read_until_closed(idle) == b""
    assert read_until_closed(half) == b""


@pytest.mark.parametrize("garbage,error", [
    (b"*1\r\n+PING\r\n", b"-ERR Protocol error: expected '$', got '+'\r\n"),
    (b"*x\r\n", b"-ERR Protocol error: invalid multibulk length\r\n"),
    (b"*1\r\n$-3\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
    (b"*1\r\n$4\r\nPINGxx", b"-ERR Protocol error: bulk string not followed by CRLF\r\n"),
    (b'SET "a\r\n', b"-ERR Protocol error: unbalanced quotes in request\r\n"),
    (b"x" * 70000, b"-ERR Protocol error: too big inline request\r\n"),
])
def test_malformed_requests_close_only_their_connection(server, garbage, error):
    other = server.client()
    other.set("k", "v")
    s = server.socket()
    s.sendall(b"PING\r\n" + garbage + b"PING\r\n")
    assert read_until_closed(s) == b"+PONG\r\n" + error
    assert other.get("k") == b"v"


def test_oversized_arguments_are_dropped_unread(server):
    s = server.socket()
    header = b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000000\r\n"
    s.sendall(header)
    chunk = b"x" * 1_000_000
    for _ in range(100):  # 100 MB, never buffered by the server
        s.sendall(chunk)
    s.sendall(b"\r\nGET k\r\n")
    assert read_until(s, b"$-1\r\n") == (
        b"-ERR argument of 100000000 bytes exceeds the limit of 65536 bytes "
        b"(keys up to 1024, values up to 65536)\r\n$-1\r\n")


def test_clients_that_leave_mid_request(server):
    r = server.client()
    baseline = connected_clients(server)
    for partial in (b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nab",
                    b"*3\r\n$3\r\nSET\r\n", b"SET k", b"*2\r\n$3\r\nGET",
                    b"*1\r\n$4\r\nPING\r\n" * 1000 + b"*1\r\n$4\r\nPI"):
        for _ in range(20):
            s = server.socket()
            s.sendall(partial)
            s.close()
    # A client that pipelines and leaves before reading its replies.
    for _ in range(20):
        s = server.socket()
        s.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n" * 500)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
        s.close()  # a reset
    wait_for(lambda: connected_clients(server) == baseline)
    assert r.get("k") in (None, b"v")
    assert r.set("k", "w") and r.get("k") == b"w"


def test_a_client_that_stops_reading_blocks_no_one(server):
    r = server.client()
    r.set("big", b"x" * 65536)
    stalled = server.socket()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    # Requests for 640 MB of replies that it never reads.
    stalled.sendall(b"GET big\r\n" * 10000)
    time.sleep(0.5)
    start = time.monotonic()
    for i in range(500):
        assert r.set(f"k{i}", i) and r.get(f"k{i}") == str(i).encode()
    assert time.monotonic() - start < 10
    stalled.close()


def test_many_concurrent_clients(server):
    threads, errors = [], []
    clients, operations = 40, 200

    def work(n):
        try:
            r = server.client()
            for i in range(operations):
                assert r.set(f"c{n}:{i}", i)
                r.incr("shared")
                if i % 20 == 0:
                    pipe = r.pipeline(transaction=False)
                    pipe.mset({f"m{n}:{i}:{j}": j for j in range(10)})
                    pipe.mget([f"c{n}:{j}" for j in range(i + 1)])
                    _, values = pipe.execute()
                    assert values == [str(j).encode() for j in range(i + 1)]
        except Exception as e:  # reported below
            errors.append(e)

    for n in range(clients):
        threads.append(threading.Thread(target=work, args=(n,)))
        threads[-1].start()
    for t in threads:
        t.join()
    assert errors == []
    r = server.client()
    assert int(r.get("shared")) == clients * operations  # no INCR lost
    assert r.dbsize() == clients * operations + clients * 10 * 10 + 1
