# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# RENAME and RENAMENX: Redis 7's replies and errors (compared with
# redis-server 7.0.15), which watched keys they touch, and that no client
# ever sees both keys or neither (one batch, the gate held alone).

import threading

from conftest import error_of, read_until, run_threads
from test_transactions import read_lines


def test_replies_and_errors_as_redis(server):
    s = server.socket()
    for request, reply in [
        (b"SET a 1", b"+OK\r\n"),
        (b"RENAME a a", b"+OK\r\n"),
        (b"RENAME nokey x", b"-ERR no such key\r\n"),
        (b"RENAMENX a a", b":0\r\n"),
        (b"SET b 2", b"+OK\r\n"),
        (b"RENAMENX a b", b":0\r\n"),
        (b"RENAME a b", b"+OK\r\n"),
        (b"GET b", b"$1\r\n1\r\n"),
        (b"EXISTS a", b":0\r\n"),
        (b"RENAMENX b c", b":1\r\n"),
        (b"GET c", b"$1\r\n1\r\n"),
        (b"RENAME nokey nokey", b"-ERR no such key\r\n"),
        (b"RENAMENX nokey nokey", b"-ERR no such key\r\n"),
        (b"RENAME a", b"-ERR wrong number of arguments for 'rename' command\r\n"),
        (b"RENAMENX a b c",
         b"-ERR wrong number of arguments for 'renamenx' command\r\n"),
    ]:
        s.sendall(request + b"\r\n")
        assert read_lines(s, 1) == reply, request


def test_a_new_key_over_its_limit_renames_nothing(server):
    r = server.client()
    r.set("a", "1")
    assert error_of(lambda: r.rename("a", "k" * 2000)) == (
        "InvalidArgument: key of 2000 bytes exceeds the limit of 1024 bytes")
    assert r.get("a") == b"1"


def touches(server, keys, rename, watched):
    """Whether `rename` (a RENAME or RENAMENX request) run by another client
    between WATCH `watched` and EXEC fails the EXEC, with `keys` set
    before."""
    r = server.client()
    r.delete("k", "t")
    for key in keys:
        r.set(key, "1")
    s = server.socket()
    s.sendall(b"WATCH " + watched + b"\r\n")
    assert read_until(s, b"\r\n") == b"+OK\r\n"
    r.execute_command(*rename.split())
    s.sendall(b"MULTI\r\nEXEC\r\n")
    replies = read_lines(s, 2)
    assert replies in (b"+OK\r\n*-1\r\n", b"+OK\r\n*0\r\n"), replies
    return replies == b"+OK\r\n*-1\r\n"


def test_which_renames_touch_a_watched_key(server):
    # As Redis: both keys of a rename, but neither for a key renamed to
    # itself or a RENAMENX that finds the new key.
    assert touches(server, ["k"], "RENAME k t", b"k")
    assert touches(server, ["k"], "RENAME k t", b"t")
    assert touches(server, ["k", "t"], "RENAME k t", b"t")
    assert touches(server, ["k"], "RENAMENX k t", b"k")
    assert touches(server, ["k"], "RENAMENX k t", b"t")
    assert not touches(server, ["k"], "RENAME k k", b"k")
    assert not touches(server, ["k"], "RENAMENX k k", b"k")
    assert not touches(server, ["k", "t"], "RENAMENX k t", b"k")
    assert not touches(server, ["k", "t"], "RENAMENX k t", b"t")


def test_no_reader_sees_both_keys_or_neither(start_server):
    server = start_server("--threads", "4")
    server.client().set("a", "v")
    stop = threading.Event()
    failures = []

    def rename():
        r = server.client()
        while not stop.is_set():
            r.rename("a", "b")
            r.rename("b", "a")

    def read():
        r = server.client()
        while not stop.is_set():
            found = r.exists("a", "b")
            if found != 1:
                failures.append(found)

    threads = [threading.Thread(target=rename)]
    threads += [threading.Thread(target=read) for _ in range(3)]
    run_threads(threads, stop, 2)
    assert failures == []
