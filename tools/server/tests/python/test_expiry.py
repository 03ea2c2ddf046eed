# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# Keys that expire, through redis-py and raw RESP: EXPIRE and its kin
# with NX/XX/GT/LT, TTL and its kin, PERSIST, SET's EX/PX/EXAT/PXAT/
# KEEPTTL, SETEX, PSETEX, GETEX, GETDEL; which writes keep a TTL and
# which drop it; transactions that set expiries; WATCH of a key that
# expires; expired keys gone from every command; Redis 7's replies and
# errors (compared with redis-server 7.0.15). Short TTLs and sleeps: the
# server runs on the wall clock (command_test.cc moves a clock instead).

import subprocess
import threading
import time

import pytest
import redis

from conftest import CLI, PROTOCOLS, error_of, read_until, run_threads

NOT_INTEGER = "value is not an integer or out of range"


def invalid_time(command):
    return f"invalid expire time in '{command}' command"


def now_ms():
    return int(time.time() * 1000)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_expire_ttl_and_persist(server, protocol):
    r = server.client(protocol=protocol)
    assert r.ttl("k") == -2 and r.pttl("k") == -2
    assert r.expiretime("k") == -2 and r.pexpiretime("k") == -2
    assert r.expire("k", 10) is False  # missing
    r.set("k", "v")
    assert r.ttl("k") == -1 and r.pexpiretime("k") == -1
    assert r.expire("k", 100) is True
    assert r.ttl("k") == 100
    assert 99000 < r.pttl("k") <= 100000
    assert abs(r.expiretime("k") - (time.time() + 100)) < 2
    assert r.pexpire("k", 5000) is True and 4000 < r.pttl("k") <= 5000
    at = int(time.time()) + 50
    assert r.expireat("k", at) is True and r.expiretime("k") == at
    at_ms = now_ms() + 60000
    assert r.pexpireat("k", at_ms) is True and r.pexpiretime("k") == at_ms
    assert r.persist("k") is True and r.ttl("k") == -1
    assert r.persist("k") is False and r.persist("missing") is False
    # Redis's largest time is taken as it is.
    assert r.pexpireat("k", 2**63 - 1) is True
    assert r.pexpiretime("k") == 2**63 - 1
    assert r.expiretime("k") == 9223372036854776
    assert r.pexpire("k", 150) is True
    assert r.get("k") == b"v"
    time.sleep(0.2)
    assert r.get("k") is None and r.ttl("k") == -2 and r.exists("k") == 0
    assert r.expire("k", 10) is False


def test_expire_conditions(server):
    r = server.client()
    assert r.expire("k", 100, nx=True) is False  # missing
    r.set("k", "v")
    assert r.expire("k", 100, xx=True) is False
    assert r.expire("k", 100, gt=True) is False  # none counts as never
    assert r.expire("k", 100, nx=True) is True
    assert r.expire("k", 200, nx=True) is False
    assert r.expire("k", 90, gt=True) is False  # not later (100 s stand)
    assert r.expire("k", 200, gt=True) is True and r.ttl("k") == 200
    assert r.expire("k", 300, lt=True) is False
    assert r.expire("k", 50, lt=True) is True and r.ttl("k") == 50
    assert r.execute_command("EXPIRE", "k", "60", "XX", "GT") == 1
    assert r.ttl("k") == 60
    r.persist("k")
    assert r.pexpire("k", 70000, lt=True) is True  # none counts as never
    assert r.expire("k", -1, gt=True) is False and r.exists("k") == 1
    assert r.expire("k", 0, lt=True) is True and r.exists("k") == 0


def test_expire_in_the_past_deletes(server):
    r = server.client()
    for expire in (["EXPIRE", "k", "0"], ["EXPIRE", "k", "-5"],
                   ["PEXPIRE", "k", "-9223372036854775808"],
                   ["EXPIREAT", "k", "1"], ["PEXPIREAT", "k", "100"]):
        r.set("k", "v")
        assert r.execute_command(*expire) == 1, expire
        assert r.exists("k") == 0
        assert r.execute_command(*expire) == 0, expire


def test_expire_errors(server):
    r = server.client()
    r.set("k", "v")
    expire = lambda *args: error_of(lambda: r.execute_command(*args))
    assert expire("EXPIRE", "k", "abc") == NOT_INTEGER
    assert expire("PEXPIRE", "k", "1.5") == NOT_INTEGER
    assert expire("EXPIRE", "k", "9223372036854776") == invalid_time("expire")
    assert expire("EXPIRE", "k", "-9223372036854776") == invalid_time("expire")
    assert expire("PEXPIRE", "k", str(2**63 - 1)) == invalid_time("pexpire")
    assert expire("EXPIREAT", "k", "9223372036854776") == (
        invalid_time("expireat"))
    assert expire("PEXPIREAT", "k", "x") == NOT_INTEGER
    # Options are read before the time.
    assert expire("EXPIRE", "k", "abc", "Soon") == "Unsupported option Soon"
    nx = "NX and XX, GT or LT options at the same time are not compatible"
    assert expire("EXPIRE", "k", "10", "NX", "XX") == nx
    assert expire("PEXPIRE", "k", "10", "gt", "nx") == nx
    assert expire("EXPIREAT", "k", "10", "GT", "LT") == (
        "GT and LT options at the same time are not compatible")
    for command in ("EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "TTL",
                    "PTTL", "EXPIRETIME", "PEXPIRETIME", "PERSIST", "GETEX",
                    "GETDEL", "SETEX", "PSETEX"):
        assert expire(command) == (
            f"wrong number of arguments for '{command.lower()}' command")
    assert expire("TTL", "k", "k") == (
        "wrong number of arguments for 'ttl' command")
    assert expire("SETEX", "k", "10") == (
        "wrong number of arguments for 'setex' command")
    assert r.ttl("k") == -1 and r.get("k") == b"v"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_set_with_expiry(server, protocol):
    r = server.client(protocol=protocol)
    assert r.set("k", "v", ex=10) is True and r.ttl("k") == 10
    assert r.set("k", "v", px=1500) is True and 1000 < r.pttl("k") <= 1500
    at = int(time.time()) + 20
    assert r.set("k", "v", exat=at) is True and r.expiretime("k") == at
    at_ms = now_ms() + 30000
    assert r.set("k", "v", pxat=at_ms) is True
    assert r.pexpiretime("k") == at_ms
    assert r.execute_command("SET", "k", "v", "EX", "10", "EX", "20") in (
        b"OK", "OK", True)
    assert r.ttl("k") == 20  # the last one wins
    assert r.set("k", "w", keepttl=True) is True and r.ttl("k") == 20
    assert r.set("k", "v") is True and r.ttl("k") == -1
    # XX and GET drop the TTL as a plain SET does; KEEPTTL keeps it.
    r.set("k", "v", ex=10)
    assert r.set("k", "w", xx=True) is True and r.ttl("k") == -1
    r.set("k", "v", ex=10)
    assert r.set("k", "w", get=True) == b"v" and r.ttl("k") == -1
    r.set("k", "v", ex=10)
    assert r.set("k", "w", xx=True, keepttl=True) is True
    assert r.ttl("k") == 10
    assert r.set("k", "x", xx=True, get=True, px=500) == b"w"
    assert 0 < r.pttl("k") <= 500
    assert r.set("k", "y", nx=True) is None
    assert r.set("k", "y", nx=True, get=True) == b"x"
    assert 0 < r.pttl("k") <= 500  # untouched
    assert r.set("new", "v", nx=True, ex=10) is True and r.ttl("new") == 10
    assert r.set("absent", "v", xx=True, ex=10) is None
    assert r.exists("absent") == 0
    # A time already past is taken, and the key is gone at once.
    assert r.set("k", "v", exat=1) is True and r.exists("k") == 0
    assert r.execute_command("SETEX", "k", 10, "v") is True and r.ttl("k") == 10
    assert r.psetex("k", 1500, "v") is True and 1000 < r.pttl("k") <= 1500
    assert r.get("k") == b"v"


def test_set_errors(server):
    r = server.client()
    r.set("k", "v")
    cmd = lambda *args: error_of(lambda: r.execute_command(*args))
    for option in (["EX", "0"], ["EX", "-1"], ["PX", "0"], ["EXAT", "0"],
                   ["PXAT", "-5"], ["EX", "9223372036854775"],
                   ["PX", str(2**63 - 1)], ["GET", "EX", "0"]):
        assert cmd("SET", "k", "w", *option) == invalid_time("set"), option
    assert cmd("SET", "k", "w", "EX", "abc") == NOT_INTEGER
    for option in (["EX", "10", "PX", "10"], ["EX", "10", "KEEPTTL"],
                   ["KEEPTTL", "EX", "10"], ["EX"], ["PERSIST"],
                   ["NX", "XX"], ["EX", "10", "later"]):
        assert cmd("SET", "k", "w", *option) == "syntax error", option
    assert cmd("SETEX", "k", "0", "w") == invalid_time("setex")
    assert cmd("SETEX", "k", "-5", "w") == invalid_time("setex")
    assert cmd("PSETEX", "k", "0", "w") == invalid_time("psetex")
    assert cmd("SETEX", "k", "abc", "w") == NOT_INTEGER
    assert r.get("k") == b"v" and r.ttl("k") == -1  # nothing written


def test_getex_and_getdel(server):
    r = server.client()
    r.execute_command("SETEX", "k", 100, "v")
    assert r.getex("k") == b"v" and r.ttl("k") == 100
    assert r.getex("k", ex=10) == b"v" and r.ttl("k") == 10
    assert r.getex("k", px=1500) == b"v" and 1000 < r.pttl("k") <= 1500
    at = int(time.time()) + 50
    assert r.getex("k", exat=at) == b"v" and r.expiretime("k") == at
    assert r.getex("k", persist=True) == b"v" and r.ttl("k") == -1
    assert r.getex("k", persist=True) == b"v"
    # An EXAT or PXAT already past deletes the key, after answering it.
    assert r.getex("k", pxat=100) == b"v" and r.exists("k") == 0
    assert r.getex("k", ex=10) is None
    cmd = lambda *args: error_of(lambda: r.execute_command(*args))
    # A missing key answers null before its time is checked (not options).
    assert r.execute_command("GETEX", "k", "EX", "abc") is None
    assert cmd("GETEX", "k", "nosuch") == "syntax error"
    r.set("k", "v")
    assert cmd("GETEX", "k", "EX", "abc") == NOT_INTEGER
    assert cmd("GETEX", "k", "EX", "0") == invalid_time("getex")
    assert cmd("GETEX", "k", "PX", str(2**63 - 1)) == invalid_time("getex")
    for option in (["NX"], ["KEEPTTL"], ["GET"], ["EX"],
                   ["PERSIST", "EX", "10"], ["EX", "10", "PERSIST"],
                   ["EX", "10", "PX", "10"]):
        assert cmd("GETEX", "k", *option) == "syntax error", option
    assert r.ttl("k") == -1
    assert r.getdel("k") == b"v" and r.exists("k") == 0
    assert r.getdel("k") is None


def test_which_writes_keep_a_ttl(server):
    r = server.client()
    r.set("n", "1", ex=100)
    for keeps in (lambda: r.incr("n"), lambda: r.incrby("n", 3),
                  lambda: r.decr("n"), lambda: r.decrby("n", 2),
                  lambda: r.incrbyfloat("n", 1.5), lambda: r.append("n", "0"),
                  lambda: r.setrange("n", 0, "7"), lambda: r.setnx("n", "1"),
                  lambda: r.set("n", "1", nx=True)):
        keeps()
        assert r.ttl("n") == 100
    assert r.getset("n", "1") == b"7.50" and r.ttl("n") == -1
    r.set("n", "1", ex=100)
    r.mset({"n": "2", "m": "3"})
    assert r.ttl("n") == -1
    # RENAME moves the TTL with the key, and the target's goes.
    r.set("a", "1", ex=100)
    r.set("b", "2")
    assert r.rename("a", "b") and r.ttl("b") == 100 and r.ttl("a") == -2
    r.set("a", "1")
    assert r.rename("a", "b") and r.ttl("b") == -1
    r.set("a", "1", ex=50)
    assert r.renamenx("a", "c") and r.ttl("c") == 50
    # An expired key is absent: what replaces it has no TTL.
    r.set("n", "5", px=100)
    r.set("s", "x", px=100)
    time.sleep(0.15)
    assert r.incr("n") == 1 and r.ttl("n") == -1
    assert r.append("s", "y") == 1 and r.ttl("s") == -1
    assert error_of(lambda: r.rename("a", "d")) == "no such key"


def create_pool(path, *options):
    subprocess.run([CLI, "create", path, *options], check=True,
                   capture_output=True)


@pytest.mark.parametrize("pool_options", [["--small"], ["--small", "--range"]])
def test_expired_keys_are_gone(start_server, pool_path, pool_options):
    create_pool(pool_path, *pool_options)
    r = start_server(create=False).client()
    r.mset({"a": "1", "b": "2"})
    r.set("c", "3", px=100)
    r.set("d", "4", ex=100)
    assert r.dbsize() == 4
    time.sleep(0.15)
    assert r.dbsize() == 3
    assert sorted(r.keys("*")) == [b"a", b"b", b"d"]
    assert sorted(r.scan_iter()) == [b"a", b"b", b"d"]
    assert r.exists("a", "c", "d") == 2
    assert r.get("c") is None and r.mget("c", "a") == [None, b"1"]
    assert r.type("c") == b"none" and r.strlen("c") == 0
    assert b"c" not in {r.randomkey() for _ in range(50)}


def test_expiry_survives_a_restart(start_server, pool_path):
    server = start_server()
    server.client().set("k", "v", ex=100)
    server.stop()
    r = start_server(create=False).client()
    assert r.get("k") == b"v" and 95 <= r.ttl("k") <= 100


def read_lines(sock, lines):
    data = b""
    while data.count(b"\r\n") < lines:
        chunk = sock.recv(65536)
        assert chunk, data
        data += chunk
    return data


def exchange(sock, requests):
    """Each request (inline) and the exact reply it gets."""
    for request, reply in requests:
        sock.sendall(request + b"\r\n")
        assert read_lines(sock, reply.count(b"\r\n")) == reply, request


def test_a_transaction_writes_its_expiries(server):
    r = server.client()
    r.set("old", "v", ex=100)
    exchange(server.socket(), [
        (b"MULTI", b"+OK\r\n"),
        (b"SET a 1 EX 100", b"+QUEUED\r\n"),
        (b"SET b 2", b"+QUEUED\r\n"),
        (b"PEXPIRE b 50000", b"+QUEUED\r\n"),
        (b"TTL a", b"+QUEUED\r\n"),  # later commands see the expiries
        (b"TTL b", b"+QUEUED\r\n"),
        (b"INCR a", b"+QUEUED\r\n"),
        (b"TTL a", b"+QUEUED\r\n"),
        (b"SET old w XX", b"+QUEUED\r\n"),
        (b"TTL old", b"+QUEUED\r\n"),
        (b"SET gone 1 EXAT 1", b"+QUEUED\r\n"),
        (b"GET gone", b"+QUEUED\r\n"),
        (b"SETEX c 30 x", b"+QUEUED\r\n"),
        (b"EXEC", b"*12\r\n+OK\r\n+OK\r\n:1\r\n:100\r\n:50\r\n:2\r\n:100\r\n"
                  b"+OK\r\n:-1\r\n+OK\r\n$-1\r\n+OK\r\n"),
        (b"MULTI", b"+OK\r\n"),
        (b"PERSIST b", b"+QUEUED\r\n"),
        (b"PERSIST b", b"+QUEUED\r\n"),
        (b"EXPIRE a 200 GT", b"+QUEUED\r\n"),
        (b"EXPIRE a -1", b"+QUEUED\r\n"),
        (b"GET a", b"+QUEUED\r\n"),
        (b"TTL a", b"+QUEUED\r\n"),
        (b"GETEX c PX 20000", b"+QUEUED\r\n"),
        (b"EXEC", b"*7\r\n:1\r\n:0\r\n:1\r\n:1\r\n$-1\r\n:-2\r\n$1\r\nx\r\n"),
    ])
    assert r.ttl("b") == -1 and r.exists("a", "gone") == 0
    assert r.get("old") == b"w" and r.ttl("old") == -1
    assert 19000 < r.pttl("c") <= 20000
    # redis-py's pipeline (a transaction) likewise.
    pipe = r.pipeline()
    pipe.set("p", "1", px=200).set("q", "2").pexpire("q", 200).ttl("p")
    assert pipe.execute() == [True, True, True, 0]
    assert r.exists("p", "q") == 2
    time.sleep(0.25)
    assert r.exists("p", "q") == 0


def exec_after(server, write, key=b"k"):
    """EXEC's reply (raw RESP2) when `write` runs between WATCH and MULTI."""
    s = server.socket()
    s.sendall(b"WATCH " + key + b"\r\n")
    assert read_until(s, b"\r\n") == b"+OK\r\n"
    write(server.client())
    s.sendall(b"MULTI\r\nEXEC\r\n")
    replies = read_lines(s, 2)
    assert replies.startswith(b"+OK\r\n")
    return replies[len(b"+OK\r\n"):]


def test_watch_and_expiry(server):
    touched, untouched = b"*-1\r\n", b"*0\r\n"
    r = server.client()
    # A watched key that expires before EXEC fails it (Redis 6.0.9 on) ...
    r.set("k", "v", px=100)
    assert exec_after(server, lambda c: time.sleep(0.15)) == touched
    # ... but not one that had expired before WATCH, nor one that has not.
    assert exec_after(server, lambda c: None) == untouched
    r.set("k", "v", ex=100)
    assert exec_after(server, lambda c: None) == untouched
    # Which expiry commands touch a watched key: those that write.
    assert exec_after(server, lambda c: c.expire("k", 200)) == touched
    assert exec_after(server, lambda c: c.expire("k", 300, lt=True)) == (
        untouched)
    assert exec_after(server, lambda c: c.ttl("k")) == untouched
    assert exec_after(server, lambda c: c.getex("k")) == untouched
    assert exec_after(server, lambda c: c.getex("k", ex=100)) == touched
    assert exec_after(server, lambda c: c.persist("k")) == touched
    assert exec_after(server, lambda c: c.persist("k")) == untouched
    assert exec_after(server, lambda c: c.getex("k", persist=True)) == (
        untouched)
    assert exec_after(server, lambda c: c.set("k", "v", exat=1)) == touched
    assert exec_after(server, lambda c: c.getdel("k")) == untouched
    r.set("k", "v")
    assert exec_after(server, lambda c: c.getdel("k")) == touched
    r.set("k", "v")
    assert exec_after(server, lambda c: c.expire("k", 0)) == touched
    setex = lambda c: c.execute_command("SETEX", "k", 10, "v")
    assert exec_after(server, setex) == touched


def test_conditional_expires_race_as_one(start_server):
    # EXPIRE NX reads the expiry and writes it in one atomic step: no two
    # clients both see none.
    server = start_server("--threads", "4")
    r = server.client()
    r.set("k", "v")
    for _ in range(20):
        wins = []
        clients = [server.client() for _ in range(6)]
        threads = [threading.Thread(
            target=lambda c=c: wins.append(c.expire("k", 100, nx=True)))
            for c in clients]
        run_threads(threads)
        assert wins.count(True) == 1
        assert r.persist("k") is True


def raw_client(server):
    """A client whose replies are as the server sent them (no redis-py
    conversion: SET ... GET's value, EXPIRE's integer)."""
    client = server.client()
    client.response_callbacks.clear()
    return client


def run_each(client, commands, in_multi):
    """The replies to `commands` (argument lists), run one by one or, with
    `in_multi`, as one MULTI/EXEC."""
    if not in_multi:
        return [client.execute_command(*c) for c in commands]
    pipe = client.pipeline(transaction=True)
    for c in commands:
        pipe.execute_command(*c)
    return pipe.execute()


def race_increments(server, key, decide, clients=3, increments=300):
    """Runs `decide` (a function of a client) in a loop while `clients`
    other clients INCR `key` `increments` times each; returns how many
    INCRs there were."""
    stop = threading.Event()

    def deciding(c):
        while True:  # at least once
            decide(c)
            if stop.is_set():
                return

    def incrementing(c):
        for _ in range(increments):
            c.incr(key)

    decider = threading.Thread(target=deciding, args=(raw_client(server),))
    decider.start()
    run_threads([threading.Thread(target=incrementing, args=(server.client(),))
                 for _ in range(clients)])
    stop.set()
    decider.join()
    return clients * increments


# GETSET and SET ... GET take the value and drop its expiry in one atomic
# step, beside other clients' INCRs (not stopping them: no one-batch
# transaction): every increment is either in a value one of them took or
# in the final value, none lost between their read and their write.
@pytest.mark.parametrize("in_multi", [False, True])
@pytest.mark.parametrize("command", [["GETSET", "n", "0"],
                                     ["SET", "n", "0", "GET"],
                                     ["SET", "n", "0", "XX", "GET"]])
def test_swaps_lose_no_increment(start_server, command, in_multi):
    server = start_server("--threads", "4")
    r = server.client()
    r.set("n", "0", ex=1000)
    taken = []
    total = race_increments(
        server, "n",
        lambda c: taken.append(int(run_each(c, [command], in_multi)[0])))
    assert sum(taken) + int(r.get("n")) == total
    assert r.ttl("n") == -1  # dropped; the INCRs after keep none


# PERSIST, GETEX PERSIST and EXPIRE NX|XX|GT|LT decide on the expiry and
# write the value back with it in one atomic step, beside other clients'
# INCRs (which keep the expiry): every decision is Redis's, and no
# increment is lost to a value written back.
@pytest.mark.parametrize("in_multi", [False, True])
def test_expiry_decisions_lose_no_increment(start_server, in_multi):
    server = start_server("--threads", "4")
    r = server.client()
    r.set("n", "0")

    def decide(c):
        at = int(time.time())
        replies = run_each(c, [
            ["EXPIRE", "n", "100", "NX"],
            ["EXPIRE", "n", "100", "NX"],
            ["PEXPIRE", "n", "300000", "GT"],
            ["TTL", "n"],
            ["EXPIREAT", "n", str(at + 50), "LT"],
            ["EXPIRETIME", "n"],
            ["PEXPIREAT", "n", str(at * 1000 + 60000), "XX"],
            ["PEXPIREAT", "n", str(at * 1000 + 70000), "LT"],
            ["GETEX", "n", "PERSIST"],
            ["PERSIST", "n"],
            ["PEXPIRE", "n", "100000", "XX"],
            ["PEXPIRE", "n", "100000"],
            ["PERSIST", "n"],
            ["TTL", "n"],
        ], in_multi)
        assert replies[:3] == [1, 0, 1] and replies[3] in (299, 300)
        assert replies[4:8] == [1, at + 50, 1, 0]
        int(replies[8])  # the value, whatever the INCRs made it
        assert replies[9:] == [0, 0, 1, 1, -1]

    total = race_increments(server, "n", decide)
    assert int(r.get("n")) == total and r.ttl("n") == -1


# SET ... GET from many clients at once, each writing its own values:
# each value written is taken by exactly one of them (or is the last),
# none taken twice or skipped.
@pytest.mark.parametrize("in_multi", [False, True])
def test_concurrent_swaps_form_one_chain(start_server, in_multi):
    server = start_server("--threads", "4")
    r = server.client()
    r.set("k", "start", ex=1000)
    taken = []
    written = ["start"]

    def swapping(c, name):
        for i in range(100):
            value = f"{name}-{i}"
            command = ["GETSET", "k", value] if i % 2 else [
                "SET", "k", value, "XX", "GET"]
            taken.append(run_each(c, [command], in_multi)[0].decode())
            written.append(value)

    run_threads([threading.Thread(target=swapping,
                                  args=(raw_client(server), f"c{n}"))
                 for n in range(4)])
    last = r.get("k").decode()
    assert sorted(taken + [last]) == sorted(written)
    assert r.ttl("k") == -1


def test_info_keyspace_counts_the_expiries_of_a_small_pool(server):
    # Up to 1,024 record versions, INFO reads every key: exact figures.
    r = server.client()
    r.set("k1", "v", ex=100)
    r.set("k2", "v", px=50_000)
    r.set("k3", "v")
    r.set("k4", "v", px=1)
    time.sleep(0.01)  # k4 expires
    keyspace = r.info("keyspace")["db0"]
    assert keyspace["expires"] == 2
    assert 70_000 <= keyspace["avg_ttl"] <= 75_000
    r.persist("k1")
    r.persist("k2")
    assert r.info("keyspace")["db0"]["expires"] == 0
    assert r.info("keyspace")["db0"]["avg_ttl"] == 0


def test_info_keyspace_estimates_the_expiries_of_a_larger_pool(server):
    # Past 1,024 versions, from 1,024 keys read in runs from random
    # partitions, scaled to the versions (docs/api.md, INFO keyspace).
    r = server.client()
    pipe = r.pipeline(transaction=False)
    for i in range(6000):
        if i % 3 == 0:
            pipe.set(f"key{i}", "v", ex=1000)
        else:
            pipe.set(f"key{i}", "v")
    pipe.execute()
    for _ in range(3):
        keyspace = r.info("keyspace")["db0"]
        assert keyspace["keys"] == 6000
        assert 1500 <= keyspace["expires"] <= 2500, keyspace
        assert 900_000 <= keyspace["avg_ttl"] <= 1_000_000, keyspace
