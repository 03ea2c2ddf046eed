# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# Protected mode: a server without a password serves clients on the
# loopback interface and refuses others with -DENIED, unless started with
# --protected-mode no. The other host is a network namespace this module
# creates (ip netns add), joined to this one by a veth pair on a /30 of its
# own: its client runs inside the namespace (ip netns exec) and connects to
# the host end of the pair, so the server sees the namespace end's address
# as the client's. The servers bind 0.0.0.0 so that loopback clients are
# served too, but the tests connect only to 127.0.0.1 and to the host end of
# the pair: no test traffic leaves the machine or reaches its interfaces.

import ipaddress
import json
import os
import subprocess
import sys

import pytest

from conftest import SERVER, read_until

DENIED = (
    b"-DENIED plush-server is running in protected mode because no password "
    b"is set: it serves only clients on the loopback interface (127.0.0.0/8 "
    b"and ::1). To serve clients of other hosts, restart it with a password "
    b"(--requirepass-file FILE), or, if every host that can reach it is "
    b"trusted, with --protected-mode no.\r\n")
NOTICE = (
    "plush-server: protected mode: no password is set, so only clients on the "
    "loopback interface are served; clients of other hosts are refused "
    "(-DENIED) unless the server is restarted with --requirepass-file or "
    "--protected-mode no\n")

# Run in the namespace: connects from there to HOST:PORT, sends each request
# in turn and reads its reply up to CRLF (a null request: reads until the
# server closes), and prints the address it connected from and the raw
# replies (hex), as JSON.
CLIENT = r"""
import json, socket, sys
host, port, requests = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
s = socket.create_connection((host, port), timeout=10)
replies = []
for request in requests:
    data = b""
    if request is None:
        while chunk := s.recv(65536):
            data += chunk
    else:
        s.sendall(request.encode("latin-1"))
        while not data.endswith(b"\r\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    replies.append(data.hex())
print(json.dumps({"local": s.getsockname()[0], "replies": replies}))
"""


def ip(*args):
    try:
        return subprocess.run(["ip", *args], capture_output=True, text=True,
                              timeout=30)
    except OSError as error:  # no iproute2
        return subprocess.CompletedProcess(["ip", *args], 127, "", str(error))


class OtherHost:
    """The network namespace `ns`, at `address`, reaching this host at `host`."""

    def __init__(self, ns, host, address):
        self.ns, self.host, self.address = ns, host, address

    def request(self, server, *requests):
        """The replies (bytes) of the server to `requests`, sent in turn on
        one connection from the other host (None: read until the server closes)."""
        result = subprocess.run(
            ["ip", "netns", "exec", self.ns, sys.executable, "-c", CLIENT,
             self.host, str(server.port), json.dumps(list(requests))],
            capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        out = json.loads(result.stdout)
        assert out["local"] == self.address  # what the server sees
        return [bytes.fromhex(reply) for reply in out["replies"]]


@pytest.fixture(scope="module")
def other_host():
    pid = os.getpid()
    ns = f"plush-pm-{pid}"
    host_link, ns_link = f"pmh{pid}", f"pmc{pid}"  # at most 15 characters
    # A /30 of 10.231.0.0/16 chosen by the pid: parallel runs do not clash.
    base = ipaddress.IPv4Address("10.231.0.0") + (pid % 16384) * 4
    host, address = str(base + 1), str(base + 2)
    made = ip("netns", "add", ns)
    if made.returncode != 0:
        pytest.skip(f"cannot create a network namespace for the other host "
                    f"(needs root and iproute2): {made.stderr.strip()}")
    try:
        made = ip("link", "add", host_link, "type", "veth", "peer", "name", ns_link)
        if made.returncode != 0:
            pytest.skip(f"cannot create a veth pair for the other host: "
                        f"{made.stderr.strip()}")
        for args in (["link", "set", ns_link, "netns", ns],
                     ["addr", "add", f"{host}/30", "dev", host_link],
                     ["link", "set", host_link, "up"],
                     ["-n", ns, "addr", "add", f"{address}/30", "dev", ns_link],
                     ["-n", ns, "link", "set", ns_link, "up"],
                     ["-n", ns, "link", "set", "lo", "up"]):
            result = ip(*args)
            assert result.returncode == 0, f"ip {' '.join(args)}: {result.stderr}"
        yield OtherHost(ns, host, address)
    finally:
        ip("netns", "del", ns)  # deletes ns_link, and with it host_link
        ip("link", "del", host_link)  # in case it was not moved


def ping(sock):
    sock.sendall(b"PING\r\n")
    return read_until(sock, b"\r\n")


def rest_of_log(server):
    server.stop()
    return server.process.stderr.read()


def test_other_hosts_are_denied_without_a_password(start_server, other_host):
    server = start_server("--bind", "0.0.0.0")
    assert ping(server.socket()) == b"+PONG\r\n"  # loopback: served
    assert other_host.request(server, None) == [DENIED]
    # A client that sends its request at once reads the same.
    assert other_host.request(server, "PING\r\n") == [DENIED]
    assert server.client().info("stats")["rejected_connections"] == 2
    # The notice is the line after the start-up line. Read once the server
    # has stopped: a server that never prints it fails here, not hangs.
    assert rest_of_log(server).startswith(NOTICE)


def test_protected_mode_no_serves_other_hosts(start_server, other_host):
    server = start_server("--bind", "0.0.0.0", "--protected-mode", "no")
    assert other_host.request(server, "PING\r\n") == [b"+PONG\r\n"]
    assert "protected mode" not in rest_of_log(server)


def test_other_hosts_may_authenticate_with_a_password(start_server, other_host,
                                                      tmp_path):
    password_file = tmp_path / "password"
    password_file.write_text("s3cret\n")
    server = start_server("--bind", "0.0.0.0", "--requirepass-file",
                          str(password_file))
    assert other_host.request(server, "PING\r\n", "AUTH s3cret\r\n",
                              "PING\r\n") == [
        b"-NOAUTH Authentication required.\r\n", b"+OK\r\n", b"+PONG\r\n"]
    assert "protected mode" not in rest_of_log(server)


def test_no_notice_on_loopback(start_server):
    server = start_server()  # binds 127.0.0.1
    assert "protected mode" not in rest_of_log(server)


def test_protected_mode_takes_yes_or_no(pool_path):
    result = subprocess.run([SERVER, "--pool", pool_path, "--create",
                             "--port", "0", "--protected-mode", "off"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2  # InvalidArgument
    assert result.stderr.startswith(
        "--protected-mode: off not in {yes,no}\n"), result.stderr
