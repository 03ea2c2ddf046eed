# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# CLIENT ID, INFO, LIST and KILL through redis-py and raw RESP: the fields
# of a client's line, Redis 7's replies and errors (compared with
# redis-server 7.0.15), and that a killed client's connection is closed
# at once.

import socket
import time

import pytest
import redis

from conftest import PROTOCOLS, error_of, read_until, read_until_closed

# The fields of a line, in order: Redis's, but for those it gives of its
# buffers and memory, which mean nothing here.
FIELDS = ["id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db",
          "sub", "psub", "ssub", "multi", "watch", "cmd", "user", "redir",
          "resp"]


def address(s):
    host, port = s.getsockname()[:2]
    return f"{host}:{port}"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_client_info_describes_the_connection(server, protocol):
    r = server.client(protocol=protocol, client_name="me")
    info = r.client_info()
    assert list(info) == FIELDS
    assert info["id"] == r.client_id()
    assert info["laddr"] == f"127.0.0.1:{server.port}"
    assert info["name"] == "me"
    assert info["cmd"] == "client|info"
    assert (info["flags"], info["db"], info["multi"], info["watch"]) == (
        "N", 0, -1, "0")
    assert (info["sub"], info["psub"], info["user"], info["redir"]) == (
        0, 0, "default", "-1")
    assert info["resp"] == str(protocol)
    assert info["age"] >= 0 and info["idle"] == 0


def test_client_list_shows_every_client(server):
    r = server.client()
    s = server.socket()
    s.sendall(b"CLIENT SETNAME raw\r\nWATCH a b\r\nMULTI\r\nGET a\r\n")
    assert read_until(s, b"QUEUED\r\n") == b"+OK\r\n+OK\r\n+OK\r\n+QUEUED\r\n"
    r.set("a", "1")  # touches what the raw client watches
    clients = {c["name"]: c for c in r.client_list()}
    assert set(clients) == {"", "raw"}
    raw = clients["raw"]
    assert list(raw) == FIELDS
    assert raw["addr"] == address(s)
    assert (raw["flags"], raw["multi"], raw["watch"], raw["cmd"]) == (
        "xd", "1", "2", "get")
    assert clients[""]["cmd"] == "client|list"
    assert int(raw["id"]) < int(clients[""]["id"])
    # Filters: by id, and by type (every client here is a normal one).
    assert [c["name"] for c in r.client_list(client_id=[raw["id"]])] == ["raw"]
    assert len(r.client_list(_type="normal")) == 2
    assert r.client_list(_type="pubsub") == []


def test_client_kill_closes_the_connection_at_once(server):
    r = server.client()
    victims = [server.socket() for _ in range(3)]
    for v in victims:
        v.sendall(b"CLIENT ID\r\n")
    ids = [int(read_until(v, b"\r\n")[1:-2]) for v in victims]
    start = time.monotonic()
    assert r.client_kill_filter(_id=ids[0]) == 1
    assert read_until_closed(victims[0]) == b""
    assert r.client_kill_filter(addr=address(victims[1])) == 1
    assert read_until_closed(victims[1]) == b""
    assert r.client_kill(address(victims[2])) is True  # the old form
    assert read_until_closed(victims[2]) == b""
    assert time.monotonic() - start < 5
    assert r.client_kill_filter(_id=ids[0]) == 0
    assert error_of(lambda: r.client_kill(address(victims[0]))) == (
        "No such client")
    assert [c["id"] for c in r.client_list()] == [str(r.client_id())]


def test_client_kill_of_itself(server):
    r = server.client()
    me = r.client_id()
    assert r.client_kill_filter(_id=me) == 0  # SKIPME yes by default
    assert r.client_kill_filter(_type="normal") == 0
    s = server.socket()
    s.sendall(b"CLIENT ID\r\n")
    own = read_until(s, b"\r\n")[1:-2]
    # Without SKIPME, the reply is sent, then the connection closed.
    s.sendall(b"CLIENT KILL ID " + own + b" SKIPME no\r\nPING\r\n")
    assert read_until_closed(s) == b":1\r\n"
    s = server.socket()
    s.sendall(b"CLIENT KILL " + address(s).encode() + b"\r\nPING\r\n")
    assert read_until_closed(s) == b"+OK\r\n"
    assert r.ping()


def test_client_kill_filters_combine(server):
    r = server.client()
    s = server.socket()
    addr = address(s)
    laddr = f"127.0.0.1:{server.port}"
    assert r.client_kill_filter(addr=addr, laddr="127.0.0.1:1") == 0
    assert r.client_kill_filter(addr=addr, _type="pubsub") == 0
    assert r.client_kill_filter(addr=addr, user="default", laddr=laddr) == 1
    assert read_until_closed(s) == b""


def test_errors_as_redis(server):
    s = server.socket()
    for request, reply in [
        (b"CLIENT KILL", b"-ERR wrong number of arguments for 'client|kill' "
                         b"command"),
        (b"CLIENT KILL 1.2.3.4:5", b"-ERR No such client"),
        (b"CLIENT KILL id", b"-ERR No such client"),
        (b"CLIENT KILL ID abc", b"-ERR client-id should be greater than 0"),
        (b"CLIENT KILL ID 0", b"-ERR client-id should be greater than 0"),
        (b"CLIENT KILL ID 999", b":0"),
        (b"CLIENT KILL ID 1 ADDR", b"-ERR syntax error"),
        (b"CLIENT KILL foo bar", b"-ERR syntax error"),
        (b"CLIENT KILL SKIPME maybe", b"-ERR syntax error"),
        (b"CLIENT KILL MAXAGE 10", b"-ERR syntax error"),  # Redis 7.4's
        (b"CLIENT KILL TYPE foo", b"-ERR Unknown client type 'foo'"),
        (b"CLIENT KILL USER bob", b"-ERR No such user 'bob'"),
        (b"CLIENT LIST TYPE foo", b"-ERR Unknown client type 'foo'"),
        (b"CLIENT LIST ID abc", b"-ERR Invalid client ID"),
        (b"CLIENT LIST ID 0", b"$0\r\n"),
        (b"CLIENT LIST foo", b"-ERR syntax error"),
        (b"CLIENT LIST ID", b"-ERR syntax error"),
        (b"CLIENT LIST TYPE normal ID 1", b"-ERR syntax error"),
        (b"CLIENT INFO x", b"-ERR wrong number of arguments for 'client|info' "
                           b"command"),
        (b"CLIENT ID x", b"-ERR wrong number of arguments for 'client|id' "
                         b"command"),
        (b"CLIENT PAUSE 10", b"-ERR unknown subcommand 'PAUSE'. Try CLIENT "
                             b"HELP."),
    ]:
        s.sendall(request + b"\r\n")
        assert read_until(s, b"\r\n" * reply.count(b"\r\n") + b"\r\n") == (
            reply + b"\r\n"), request
