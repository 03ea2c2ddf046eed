# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# EXEC runs a transaction against an overlay of the pool and writes it as
# one batch: every command reads the writes of those before it in the
# same transaction (read-your-writes), for each write command, with the
# replies redis-server 7.0.15 gives for the same transactions.

import pytest
import redis

from conftest import PROTOCOLS


def transaction(r, build):
    pipe = r.pipeline()  # MULTI ... EXEC
    build(pipe)
    return pipe.execute(raise_on_error=False)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_each_command_reads_the_transactions_writes(server, protocol):
    r = server.client(protocol=protocol)
    t = lambda build: transaction(r, build)
    assert t(lambda p: p.set("k", 1).incr("k").get("k").incrby("k", 5)
             .decr("k").decrby("k", 2).get("k")) == [
                 True, 2, b"2", 7, 6, 4, b"4"]
    assert t(lambda p: p.set("a", "x").delete("a").get("a").exists("a")
             .type("a").unlink("a")) == [True, 1, None, 0, b"none", 0]
    assert t(lambda p: p.append("s", "ab").append("s", "cd").get("s")
             .strlen("s")) == [2, 4, b"abcd", 4]
    assert t(lambda p: p.set("s", "Hello").setrange("s", 6, "World")
             .get("s").getrange("s", 0, 4)) == [
                 True, 11, b"Hello\x00World", b"Hello"]
    assert t(lambda p: p.set("f", "10.5").incrbyfloat("f", 0.1)
             .get("f")) == [True, 10.6, b"10.6"]
    assert t(lambda p: p.mset({"a": 1, "b": 2}).mget("a", "b").incrby("a", 5)
             .exists("a", "b", "c")) == [True, [b"1", b"2"], 6, 2]
    assert t(lambda p: p.setnx("n", 1).setnx("n", 2).get("n")) == [
        True, False, b"1"]
    assert t(lambda p: p.set("g", "old").getset("g", "new").get("g")) == [
        True, b"old", b"new"]
    assert t(lambda p: p.set("x", 1, nx=True).set("x", 2, nx=True)
             .set("x", 3, xx=True, get=True).get("x")) == [
                 True, None, b"1", b"3"]
    assert t(lambda p: p.set("c", 1).rename("c", "d").get("c").get("d")
             .set("c", 2).renamenx("d", "c").renamenx("d", "e")
             .mget("c", "d", "e")) == [
                 True, True, None, b"1", True, False, True, [b"2", None, b"1"]]
    # And what the transaction wrote is in the pool afterwards.
    assert r.mget("k", "a", "s", "f", "n", "g", "x", "c", "d", "e") == [
        b"4", b"6", b"Hello\x00World", b"10.6", b"1", b"new", b"3", b"2",
        None, b"1"]


def test_a_failing_command_fails_alone(server):
    r = server.client()
    replies = transaction(r, lambda p: p.set("k", "v").incr("k").set("k", 1)
                          .incr("k").delete("k").incr("k"))
    assert isinstance(replies[1], redis.ResponseError)
    assert str(replies[1]) == "value is not an integer or out of range"
    assert replies[:1] + replies[2:] == [True, True, 2, 1, 1]
    assert r.get("k") == b"1"


def test_a_key_over_its_limit_fails_its_command_alone(server):
    r = server.client()
    big = "k" * 2000
    replies = transaction(r, lambda p: p.set("a", 1).set(big, "v")
                          .mset({"b": 1, big: 2}).rename("a", big).get("a"))
    error = "InvalidArgument: key of 2000 bytes exceeds the limit of 1024 bytes"
    assert replies[0] is True and replies[4] == b"1"
    assert [str(e) for e in replies[1:4]] == [error] * 3
    assert r.mget("a", "b") == [b"1", None]


def test_other_clients_see_a_transaction_whole(server):
    # The transaction's writes reach the pool together, after its last
    # command: a client that reads while it runs sees none of them.
    r = server.client()
    other = server.client()
    pipe = r.pipeline()
    for i in range(100):
        pipe.set(f"key{i}", i)
    pipe.execute()
    assert other.mget([f"key{i}" for i in range(100)]) == [
        str(i).encode() for i in range(100)]
