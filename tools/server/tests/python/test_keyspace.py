# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# TYPE, TOUCH, UNLINK, KEYS and RANDOMKEY through redis-py, on hash and
# range pools: results, binary keys, the reply limit of KEYS, and Redis's
# arity errors.

import subprocess

import pytest

from conftest import CLI, PROTOCOLS, error_of


def create_pool(path, *options):
    subprocess.run([CLI, "create", path, *options], check=True, capture_output=True)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_type_touch_unlink(server, protocol):
    r = server.client(protocol=protocol)
    r.mset({"a": "1", "b": "2", b"\x00bin": "3"})
    assert r.type("a") == b"string" and r.type(b"\x00bin") == b"string"
    assert r.type("missing") == b"none"
    assert r.touch("a", "a", "missing", b"\x00bin") == 3  # as EXISTS counts
    assert r.touch("missing") == 0
    assert r.unlink("a", "missing", "a") == 1  # as DEL counts
    assert r.exists("a") == 0 and r.type("a") == b"none"
    assert r.unlink(b"\x00bin", "b") == 2
    assert r.unlink("b") == 0


@pytest.mark.parametrize("pool_options", [[], ["--range"]])
def test_keys(start_server, pool_path, pool_options):
    create_pool(pool_path, *pool_options)
    r = start_server(create=False).client()
    assert r.keys("*") == []
    names = [f"user:{i}" for i in range(300)] + ["h?llo", "hello", "hallo", "*"]
    pipe = r.pipeline(transaction=False)
    for name in names:
        pipe.set(name, "v")
    pipe.set(b"bin\x00\xff", "v")
    pipe.execute()
    r.delete("user:7")
    everything = r.keys("*")
    assert len(everything) == len(set(everything)) == len(names)  # one gone, one added
    expected = {n.encode() for n in names if n != "user:7"} | {b"bin\x00\xff"}
    assert set(everything) == expected
    if pool_options:  # a range pool walks in key order
        assert everything == sorted(everything)
    assert set(r.keys("user:1?")) == {f"user:1{d}".encode() for d in range(10)}
    assert r.keys("user:7") == []
    assert set(r.keys("h[ae]llo")) == {b"hello", b"hallo"}
    assert r.keys("h\\?llo") == [b"h?llo"]
    assert r.keys("\\*") == [b"*"]
    assert r.keys(b"bin\x00*") == [b"bin\x00\xff"]
    assert r.keys("nomatch*") == []


def test_keys_answers_at_most_64_mib(server):
    r = server.client()
    # 65,000 keys of 1,024 bytes: their reply would be over 64 MiB.
    for start in range(0, 65000, 5000):
        pipe = r.pipeline(transaction=False)
        for i in range(start, start + 5000):
            pipe.set(f"{i:05}".encode() + b"k" * 1019, "")
        pipe.execute()
    assert error_of(lambda: r.keys("*")) == (
        "the reply would exceed 67108864 bytes: iterate with SCAN instead")
    assert len(r.keys("0000*")) == 10  # a pattern that matches fewer answers
    assert r.ping()


@pytest.mark.parametrize("pool_options", [["--small"], ["--small", "--range"]])
def test_randomkey(start_server, pool_path, pool_options):
    create_pool(pool_path, *pool_options)
    r = start_server(create=False).client()
    assert r.randomkey() is None
    keys = {f"k{i}".encode() for i in range(5)}
    r.mset({k: "v" for k in keys})
    # A small pool has 4 partitions: each key comes up in at least 1 call
    # of 20, so 300 draws see them all but with odds below 1e-6.
    drawn = {r.randomkey() for _ in range(300)}
    assert drawn == keys
    r.delete(*keys)
    assert r.randomkey() is None


def test_arity_errors(server):
    r = server.client()
    for command in (["TYPE"], ["TYPE", "a", "b"], ["TOUCH"], ["UNLINK"],
                    ["KEYS"], ["KEYS", "a", "b"], ["RANDOMKEY", "x"]):
        assert error_of(lambda: r.execute_command(*command)) == (
            f"wrong number of arguments for '{command[0].lower()}' command")
