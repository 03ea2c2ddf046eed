# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# APPEND, GETRANGE, SETRANGE and INCRBYFLOAT through redis-py: Redis 7's
# results (index clamping, zero padding, float spelling), its errors, the
# value size limit, and the read-modify-write commands under concurrent
# writers of one key (no update lost).

import threading

import pytest

from conftest import PROTOCOLS, error_of, run_threads

TOO_LONG = "string exceeds maximum allowed size (values up to 65536 bytes)"


def arity_error(command):
    return f"wrong number of arguments for '{command}' command"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_append(server, protocol):
    r = server.client(protocol=protocol)
    assert r.append("k", "Hello") == 5  # a missing key is created
    assert r.append("k", " World") == 11
    assert r.get("k") == b"Hello World"
    assert r.append("k", "") == 11
    assert r.append("empty", "") == 0 and r.exists("empty") == 1
    assert r.append(b"bin\x00", b"\x00\xff") == 2
    assert r.get(b"bin\x00") == b"\x00\xff"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_getrange(server, protocol):
    r = server.client(protocol=protocol)
    r.set("s", "This is a string")
    assert r.getrange("s", 0, 3) == b"This"
    assert r.getrange("s", -3, -1) == b"ing"
    assert r.getrange("s", 0, -1) == b"This is a string"
    assert r.getrange("s", 10, 100) == b"string"  # clamped to the value
    assert r.getrange("s", 5, 5) == b"i"
    assert r.getrange("s", 100, 200) == b""
    assert r.getrange("s", 3, 2) == b""
    assert r.getrange("s", -1, -5) == b""  # no wrapping around
    assert r.getrange("s", -100, 3) == b"This"
    assert r.getrange("s", -(2**63), 2**63 - 1) == b"This is a string"
    # Redis 7: an end before the start of the value becomes 0, so these
    # answer the first byte (Redis 8 answers "").
    assert r.getrange("s", 0, -100) == b"T"
    assert r.getrange("s", -100, -99) == b"T"
    assert r.getrange("s", 1, -100) == b""
    assert r.getrange("missing", 0, -1) == b""
    r.set("empty", "")
    assert r.getrange("empty", 0, -1) == b"" and r.getrange("empty", -1, -1) == b""


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_setrange(server, protocol):
    r = server.client(protocol=protocol)
    r.set("k", "Hello World")
    assert r.setrange("k", 6, "Redis") == 11
    assert r.get("k") == b"Hello Redis"
    assert r.setrange("k", 9, "ing!") == 13  # grows past the end
    assert r.get("k") == b"Hello Reding!"
    assert r.setrange("padded", 5, "Redis!") == 11  # zero bytes up to the offset
    assert r.get("padded") == b"\x00" * 5 + b"Redis!"
    # An empty value changes nothing and creates nothing, whatever the offset.
    assert r.setrange("k", 2**62, "") == 13
    assert r.setrange("none", 10, "") == 0 and r.exists("none") == 0
    assert r.setrange("limit", 65535, "x") == 65536
    assert r.strlen("limit") == 65536


def test_values_stay_within_the_limit(server):
    r = server.client()
    r.set("k", "x" * 65530)
    assert error_of(lambda: r.append("k", "y" * 7)) == TOO_LONG
    assert r.append("k", "y" * 6) == 65536
    assert error_of(lambda: r.append("k", "z")) == TOO_LONG
    assert error_of(lambda: r.setrange("k", 65536, "z")) == TOO_LONG
    assert error_of(lambda: r.setrange("new", 65530, "z" * 7)) == TOO_LONG
    assert error_of(lambda: r.setrange("new", 2**63 - 1, "z")) == TOO_LONG
    assert r.exists("new") == 0 and r.strlen("k") == 65536


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_incrbyfloat(server, protocol):
    r = server.client(protocol=protocol)
    r.set("f", "10.50")
    assert r.incrbyfloat("f", 0.1) == 10.6
    assert r.get("f") == b"10.6"
    assert r.incrbyfloat("f", -5) == 5.6
    # Redis computes in long double and writes 17 digits after the point.
    r.set("f", "10.6")
    r.incrbyfloat("f", "5.0e3")
    assert r.get("f") == b"5010.60000000000000009"
    r.set("e", "5.0e3")  # exponents are read, never written
    r.incrbyfloat("e", "2.0e2")
    assert r.get("e") == b"5200"
    r.set("e", "3.0")
    r.incrbyfloat("e", "1.000000000000000000000")
    assert r.get("e") == b"4"  # trailing zeros and the point go
    assert r.incrbyfloat("missing", "-1.5") == -1.5
    assert r.get("missing") == b"-1.5"
    r.incrbyfloat("tiny", "1e-20")
    assert r.get("tiny") == b"0"  # below the 17 digits
    r.set("hex", "0x10")
    assert r.incrbyfloat("hex", 1) == 17.0
    r.incrbyfloat("big", "1e30")
    assert r.get("big") == b"1000000000000000000024696061952"


def test_incrbyfloat_errors(server):
    r = server.client()
    r.set("f", "1.5")
    # Out of a long double's range (1e5000, 1e-5000) is not a float either.
    for increment in ("x", "", " 1", "1 ", "nan", "1e5000", "1e-5000", "1.5.1"):
        assert error_of(lambda: r.incrbyfloat("f", increment)) == (
            "value is not a valid float"), increment
    for increment in ("inf", "-inf"):
        assert error_of(lambda: r.incrbyfloat("f", increment)) == (
            "increment would produce NaN or Infinity")
    for stored in ("abc", "1.5 ", " 1", ""):
        r.set("s", stored)
        assert error_of(lambda: r.incrbyfloat("s", 1)) == (
            "value is not a valid float"), stored
        assert r.get("s") == stored.encode()
    assert r.get("f") == b"1.5"


def test_arity_and_argument_errors(server):
    r = server.client()
    for command in (["APPEND", "k"], ["GETRANGE", "k", "0"],
                    ["SETRANGE", "k", "0"], ["INCRBYFLOAT", "k"],
                    ["APPEND", "k", "v", "w"], ["GETRANGE", "k", "0", "1", "2"]):
        assert error_of(lambda: r.execute_command(*command)) == (
            arity_error(command[0].lower()))
    not_an_integer = "value is not an integer or out of range"
    for start, end in (("x", "1"), ("0", "1.5"), ("-0", "2"), ("01", "2"),
                       ("0", "9223372036854775808")):
        assert error_of(lambda: r.getrange("k", start, end)) == not_an_integer
    assert error_of(lambda: r.setrange("k", "x", "v")) == not_an_integer
    assert error_of(lambda: r.setrange("k", -1, "v")) == "offset is out of range"


def run_guarded(count, target):
    """Runs target(0) .. target(count - 1) in threads; their exceptions fail
    the test."""
    errors = []

    def guarded(i):
        try:
            target(i)
        except Exception as e:  # reported below, in the test's thread
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    run_threads(threads)
    assert errors == []


def test_concurrent_appends_lose_nothing(start_server):
    server = start_server("--threads", "4")
    threads, rounds = 8, 200

    def append(i):
        r = server.client()
        for _ in range(rounds):
            r.append("log", bytes([ord("a") + i]))

    run_guarded(threads, append)
    log = server.client().get("log")
    assert len(log) == threads * rounds
    for i in range(threads):
        assert log.count(bytes([ord("a") + i])) == rounds


def test_concurrent_setranges_lose_nothing(start_server):
    server = start_server("--threads", "4")
    threads, slots = 8, 100

    def fill(i):
        r = server.client()
        for slot in range(slots):
            r.setrange("board", (slot * threads + i) * 2, f"{i}{i}")

    run_guarded(threads, fill)
    board = server.client().get("board")
    assert board == b"".join(f"{i}{i}".encode() for _ in range(slots)
                             for i in range(threads))


def test_concurrent_float_increments_add_up(start_server):
    server = start_server("--threads", "4")
    threads, rounds = 8, 250

    def add(i):
        r = server.client()
        for _ in range(rounds):
            r.incrbyfloat("sum", 0.5 if i % 2 else 1.25)

    run_guarded(threads, add)
    # Halves and quarters add up exactly in binary: 4 * 250 * (0.5 + 1.25).
    assert server.client().get("sum") == b"1750"
