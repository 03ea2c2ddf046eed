# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# TIME, LASTSAVE, WAIT, CONFIG, PLUSH.VERIFY and INFO's server and memory
# sections through redis-py: the values are this server's (its options, its clock,
# its process's memory), the errors Redis's; and redis-benchmark, which
# reads CONFIG before it starts, finds what it asks for.

import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import CLI, PROTOCOLS, error_of


def test_time(server):
    seconds, microseconds = server.client().time()
    assert abs(seconds + microseconds / 1e6 - time.time()) < 5
    assert 0 <= microseconds < 1_000_000


def test_lastsave(start_server):
    before = int(time.time())
    server = start_server()
    after = int(time.time())
    r = server.client()
    # No SAVE yet: the server's start, as Redis reports its start.
    started = int(r.lastsave().timestamp())
    assert before <= started <= after
    assert r.info("persistence")["rdb_last_save_time"] == started
    time.sleep(1.1)
    assert r.save()
    saved = int(r.lastsave().timestamp())
    assert saved > started
    assert r.info("persistence")["rdb_last_save_time"] == saved


def test_wait_answers_at_once(server):
    r = server.client()
    r.set("k", "v")
    start = time.monotonic()
    assert r.wait(0, 0) == 0
    assert r.wait(1, 0) == 0  # Redis would block for ever: no replica comes
    assert r.wait(3, 60000) == 0
    assert r.execute_command("WAIT", "-1", "0") == 0
    assert time.monotonic() - start < 5
    assert error_of(lambda: r.execute_command("WAIT", "x", "0")) == (
        "value is not an integer or out of range")
    assert error_of(lambda: r.execute_command("WAIT", "0", "1.5")) == (
        "timeout is not an integer or out of range")
    assert error_of(lambda: r.execute_command("WAIT", "0", "-1")) == (
        "timeout is negative")


def test_plush_verify_while_clients_write(server):
    # PLUSH.VERIFY checks the pool online: writers go on meanwhile.
    import threading
    stop = threading.Event()
    written = []

    def write():
        w = server.client()
        i = 0
        while not stop.is_set():
            w.set(f"key:{i}", "x" * (i % 50))
            written.append(i)
            i += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        r = server.client()
        verified = 0
        deadline = time.monotonic() + 60
        # Until the writer wrote a few hundred keys meanwhile.
        while verified < 5 or len(written) < 300:
            assert time.monotonic() < deadline, "timed out"
            report = r.execute_command("PLUSH.VERIFY")
            assert report == b"OK\n"
            verified += 1
    finally:
        stop.set()
        writer.join()
    assert r.get(f"key:{written[-1]}") is not None
    assert error_of(lambda: r.execute_command("PLUSH.VERIFY", "x")) == (
        "wrong number of arguments for 'plush.verify' command")


def test_plush_verify_online_from_the_cli(start_server, tmp_path):
    # `plush verify --online` asks the server for PLUSH.VERIFY.
    server = start_server()
    server.client().set("k", "v")
    done = subprocess.run(
        [CLI, "verify", "--online", f"127.0.0.1:{server.port}"],
        capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "OK\n", "")
    # A server's error reply is the CLI's error (it sends no password).
    password_file = tmp_path / "password"
    password_file.write_text("s3cret\n")
    guarded = start_server("--requirepass-file", str(password_file),
                           pool=tmp_path / "guarded.pool")
    done = subprocess.run(
        [CLI, "verify", "--online", f"127.0.0.1:{guarded.port}"],
        capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"plush: InvalidArgument: plush-server at 127.0.0.1:{guarded.port}: "
        "NOAUTH Authentication required.\n")
    # With its password (AUTH first), from the option or the environment.
    online = [CLI, "verify", "--online", f"127.0.0.1:{guarded.port}"]
    done = subprocess.run(online + ["--password", "s3cret"],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "OK\n", "")
    done = subprocess.run(online, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PLUSH_SERVER_PASSWORD": "s3cret"})
    assert (done.returncode, done.stdout, done.stderr) == (0, "OK\n", "")
    done = subprocess.run(online + ["--password", "wrong"],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"plush: InvalidArgument: plush-server at 127.0.0.1:{guarded.port}: "
        "WRONGPASS invalid username-password pair or user is disabled.\n")


@pytest.mark.parametrize("reply, error", [
    (b"$99999999999\r\n", "a reply this client does not read: $99999999999"),
    (b"*1\r\n", "a reply this client does not read: *1"),
    (b":3\r\n", "a reply this client does not read: :3"),
    (b"$-1\r\n", "a reply this client does not read: $-1"),
    (b"$5\r\nab", "End of file"),
])
def test_plush_verify_online_refuses_a_reply_it_does_not_read(reply, error):
    # Not a plush-server: whatever comes back, a clear error (exit code 5).
    import socket
    import threading
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def answer():
        connection, _ = listener.accept()
        connection.recv(100)
        connection.sendall(reply)
        connection.close()

    server = threading.Thread(target=answer)
    server.start()
    done = subprocess.run([CLI, "verify", "--online", f"127.0.0.1:{port}"],
                          capture_output=True, text=True, timeout=60)
    server.join()
    listener.close()
    assert (done.returncode, done.stdout) == (5, "")
    assert done.stderr == (
        f"plush: IOError: plush-server at 127.0.0.1:{port}: {error}\n")


def test_arity_errors(server):
    r = server.client()
    for command in (["TIME", "x"], ["LASTSAVE", "x"], ["WAIT", "1"],
                    ["WAIT", "1", "2", "3"], ["CONFIG"]):
        assert error_of(lambda: r.execute_command(*command)) == (
            f"wrong number of arguments for '{command[0].lower()}' command")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_config_get_tells_the_truth(start_server, protocol):
    server = start_server("--maxclients", "77", "--idle-timeout", "42")
    r = server.client(protocol=protocol, decode_responses=True)
    assert r.config_get("*") == {
        "appendonly": "no",
        "bind": "127.0.0.1",
        "databases": "1",
        "maxclients": "77",
        "maxmemory": "0",
        "maxmemory-policy": "noeviction",
        "port": str(server.port),  # the one the system chose for --port 0
        "protected-mode": "yes",
        "save": "",
        "timeout": "42",
    }
    # What redis-benchmark asks for, one parameter at a time.
    assert r.config_get("save") == {"save": ""}
    assert r.config_get("appendonly") == {"appendonly": "no"}
    assert r.config_get("max*") == {"maxclients": "77", "maxmemory": "0",
                                    "maxmemory-policy": "noeviction"}
    assert r.config_get("MAXMEM*") == {"maxmemory": "0",
                                       "maxmemory-policy": "noeviction"}
    assert r.config_get("[sp]?[vr]*") == {"save": "", "port": str(server.port)}
    assert r.config_get("nosuch") == {}
    # Several patterns, each parameter once; an exact name as spelled.
    assert r.config_get("save", "SAVE", "s*") == {"save": ""}
    assert r.config_get("DATABASES", "timeout") == {"DATABASES": "1", "timeout": "42"}


def test_config_get_reports_the_options(start_server):
    server = start_server("--protected-mode", "no")
    r = server.client(decode_responses=True)
    assert r.config_get("protected-mode") == {"protected-mode": "no"}
    assert r.config_get("timeout") == {"timeout": "300"}
    assert r.config_get("maxclients")["maxclients"] != "0"


def test_config_set_changes_nothing(server):
    r = server.client()
    # A parameter's own value: nothing to change (what scripts send to turn
    # snapshots or the AOF off).
    assert r.config_set("save", "")
    assert r.config_set("appendonly", "no")
    assert r.execute_command("CONFIG", "SET", "save", "", "appendonly", "no") == b"OK"
    assert error_of(lambda: r.config_set("appendonly", "yes")) == (
        "CONFIG SET failed (possibly related to argument 'appendonly') - "
        "can't set immutable config")
    assert error_of(lambda: r.config_set("TimeOut", 5)) == (
        "CONFIG SET failed (possibly related to argument 'TimeOut') - "
        "can't set immutable config")
    assert error_of(lambda: r.execute_command(
        "CONFIG", "SET", "save", "", "maxmemory", "100mb")) == (
        "CONFIG SET failed (possibly related to argument 'maxmemory') - "
        "can't set immutable config")
    assert error_of(lambda: r.config_set("requirepass", "x")) == (
        "Unknown option or number of arguments for CONFIG SET - 'requirepass'")
    assert error_of(lambda: r.execute_command("CONFIG", "SET", "save", "", "x")) == (
        "syntax error")
    assert error_of(lambda: r.execute_command("CONFIG", "SET", "save")) == (
        "wrong number of arguments for 'config|set' command")
    assert r.config_get("timeout") == {"timeout": "300"}


def test_config_other_subcommands(server):
    r = server.client()
    r.set("k", "v")
    assert error_of(r.config_resetstat) == (
        "CONFIG RESETSTAT is not supported: the pool's counters in INFO stats "
        "(plush_*) cannot be reset, so none is")
    assert r.info("stats")["total_commands_processed"] > 1  # indeed
    assert error_of(r.config_rewrite) == "The server is running without a config file"
    assert error_of(lambda: r.execute_command("CONFIG", "RESETSTAT", "x")) == (
        "wrong number of arguments for 'config|resetstat' command")
    assert error_of(lambda: r.execute_command("CONFIG", "GET")) == (
        "wrong number of arguments for 'config|get' command")
    assert error_of(lambda: r.execute_command("CONFIG", "FROB")) == (
        "unknown subcommand 'FROB'. Try CONFIG HELP.")


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def test_info_server_and_memory(server):
    r = server.client()
    info = r.info("server")
    assert info["redis_version"] == "7.0.0"
    assert info["tcp_port"] == server.port
    memory = r.info("memory")
    assert set(memory) == {
        "used_memory", "used_memory_human", "used_memory_rss",
        "used_memory_rss_human", "total_system_memory",
        "total_system_memory_human", "maxmemory", "maxmemory_human",
        "maxmemory_policy"}
    # The process's own figures, read from /proc just after (within 20%).
    anonymous = status_kib(server.process.pid, "RssAnon") * 1024
    resident = status_kib(server.process.pid, "VmRSS") * 1024
    assert abs(memory["used_memory"] - anonymous) <= anonymous / 5
    assert abs(memory["used_memory_rss"] - resident) <= resident / 5
    assert memory["used_memory"] <= memory["used_memory_rss"]
    assert re.fullmatch(r"\d+\.\d\dM", memory["used_memory_human"])
    assert memory["total_system_memory"] > memory["used_memory_rss"]
    assert memory["maxmemory"] == 0 and memory["maxmemory_human"] == "0B"
    assert memory["maxmemory_policy"] == "noeviction"
    assert "used_memory" in r.info()  # in every section's report


@pytest.mark.skipif(shutil.which("redis-benchmark") is None,
                    reason="redis-benchmark is not installed")
def test_redis_benchmark_fetches_the_config(server):
    result = subprocess.run(
        ["redis-benchmark", "-p", str(server.port), "-t", "set,get", "-n", "200", "-q"],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "CONFIG" not in result.stdout + result.stderr
    assert "SET:" in result.stdout and "GET:" in result.stdout
