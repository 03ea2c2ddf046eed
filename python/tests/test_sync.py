"""sync=True: writes that return only once they survive power failure.

A sync write is refused on a file system in memory, and on a pool file
not opened power_fail_safe, so the writes that succeed are tested on such
a pool on a disk (pytest's directory, else one in /var/tmp), and the
refusals on /dev/shm and on a disk pool opened without it.
"""

import contextlib
import os
import pathlib
import re
import subprocess
import tempfile
import threading

import pytest

import plush
from conftest import key, value

UNLOGGED = ("WriteOptions::sync needs WriteOptions::log: an unlogged write "
            "is durable only from the next Checkpoint()")
IN_MEMORY = ("WriteOptions::sync: the pool is on a file system in memory "
             "(tmpfs or ramfs), whose contents do not survive power loss; "
             "put the pool on a disk")
UNORDERED = ("WriteOptions::sync on the file back end needs the pool opened "
             "with Options::power_fail_safe: without it the pages of later "
             "migrations and log recycling reach the disk unordered, and a "
             "power failure while they do can lose the write")

# (name, call, before) for every method that takes sync: each changes the
# value of key(1) when it holds `before` (None: missing).
SYNC_WRITES = [
    ("put", lambda db, **kw: db.put(key(1), value(1), **kw), None),
    ("delete", lambda db, **kw: db.delete(key(1), **kw), value(9)),
    ("write_batch", lambda db, **kw: commit(db.write_batch(**kw)), None),
    ("update", lambda db, **kw: db.update({key(1): value(1)}, **kw), None),
    ("increment", lambda db, **kw: db.increment(key(1), **kw), None),
    ("setdefault", lambda db, **kw: db.setdefault(key(1), value(1), **kw),
     None),
]
# The ones that also take log.
LOGGED_OR_NOT = [w for w in SYNC_WRITES if w[0] in
                 ("put", "delete", "write_batch", "update")]


def commit(batch):
    batch.put(key(1), value(1))
    batch.commit()


def in_memory(directory):
    """Whether directory is on tmpfs or ramfs."""
    kind = subprocess.run(["stat", "-f", "-c", "%T", str(directory)],
                          check=True, capture_output=True, text=True).stdout
    return kind.strip() in ("tmpfs", "ramfs")


@contextlib.contextmanager
def pool_on_disk(tmp_path, power_fail_safe):
    """A small pool in a directory on a disk; skips if there is none."""
    if not in_memory(tmp_path):
        with plush.open(tmp_path / "disk.pool", small=True,
                        power_fail_safe=power_fail_safe) as handle:
            yield handle
        return
    if not os.access("/var/tmp", os.W_OK) or in_memory("/var/tmp"):
        pytest.skip(f"neither {tmp_path} nor /var/tmp is on a disk")
    with tempfile.TemporaryDirectory(dir="/var/tmp",
                                     prefix="plush-test-sync.") as directory:
        with plush.open(pathlib.Path(directory) / "disk.pool", small=True,
                        power_fail_safe=power_fail_safe) as handle:
            yield handle


@pytest.fixture
def disk_db(tmp_path):
    with pool_on_disk(tmp_path, power_fail_safe=True) as handle:
        yield handle


@pytest.fixture
def unordered_disk_db(tmp_path):
    with pool_on_disk(tmp_path, power_fail_safe=False) as handle:
        yield handle


@pytest.fixture
def shm_db():
    """A small pool in /dev/shm; skips unless that is tmpfs or ramfs."""
    if not os.path.isdir("/dev/shm") or not in_memory("/dev/shm"):
        pytest.skip("/dev/shm is no tmpfs or ramfs")
    with tempfile.TemporaryDirectory(dir="/dev/shm",
                                     prefix="plush-test-sync.") as directory:
        with plush.open(pathlib.Path(directory) / "shm.pool",
                        small=True) as handle:
            yield handle


def syncs(db):
    return db.stats()["syncs"]


def prepare(db, before):
    """Gives key(1) the value `before` (None: missing)."""
    if before is not None:
        db[key(1)] = before


@pytest.mark.parametrize("name, write, before", SYNC_WRITES)
def test_every_sync_write_syncs_the_pool(disk_db, name, write, before):
    prepare(disk_db, before)
    synced = syncs(disk_db)
    write(disk_db, sync=True)
    assert syncs(disk_db) > synced, name
    assert disk_db.get(key(1)) != before, name


@pytest.mark.parametrize("name, write, before", SYNC_WRITES)
def test_writes_without_sync_do_not_sync_the_pool(unordered_disk_db, name,
                                                  write, before):
    db = unordered_disk_db  # a power-fail-safe pool syncs every write
    synced = syncs(db)
    write(db)
    write(db, sync=False)
    assert syncs(db) == synced, name


def test_sync_writes_are_read_back(disk_db):
    disk_db.put(key(1), value(1), sync=True)
    disk_db.put(key(2), value(2), sync=True)
    disk_db.delete(key(2), sync=True)
    with disk_db.write_batch(sync=True) as batch:
        batch.put(key(3), value(3))
        batch.delete(key(1))
    disk_db.update([(key(4), value(4)), (key(5), value(5))], sync=True)
    assert disk_db.increment(b"counter", 5, sync=True) == 5
    assert disk_db.setdefault(key(6), value(6), sync=True) == value(6)
    assert disk_db.setdefault(key(6), b"other", sync=True) == value(6)
    assert disk_db.get_many([key(i) for i in range(1, 7)]) == [
        None, None, value(3), value(4), value(5), value(6)]
    assert disk_db[b"counter"] == (5).to_bytes(8, "little", signed=True)


def test_concurrent_sync_writers(disk_db):
    threads, per_thread = 4, 50
    before = syncs(disk_db)
    errors = []

    def work(index):
        try:
            for i in range(index * per_thread, (index + 1) * per_thread):
                disk_db.put(key(i), value(i), sync=True)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    workers = [threading.Thread(target=work, args=(i,))
               for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not errors, errors
    writes = threads * per_thread
    assert all(disk_db[key(i)] == value(i) for i in range(writes))
    # Writers that wait for the same sync share it: never more syncs than
    # writes.
    assert 1 <= syncs(disk_db) - before <= writes


@pytest.mark.parametrize("name, write, before", LOGGED_OR_NOT)
def test_sync_needs_log(db, name, write, before):
    prepare(db, before)
    with pytest.raises(plush.InvalidArgumentError,
                       match=f"^{re.escape(UNLOGGED)}$"):
        write(db, log=False, sync=True)
    assert db.get(key(1)) == before, name  # nothing was written


@pytest.mark.parametrize("name, write, before", SYNC_WRITES)
def test_sync_is_refused_in_memory(shm_db, name, write, before):
    prepare(shm_db, before)
    synced = syncs(shm_db)
    with pytest.raises(plush.NotSupportedError,
                       match=f"^{re.escape(IN_MEMORY)}$"):
        write(shm_db, sync=True)
    assert shm_db.get(key(1)) == before, name  # nothing was written
    assert syncs(shm_db) == synced
    write(shm_db)  # without sync, the write is made
    assert shm_db.get(key(1)) != before, name


@pytest.mark.parametrize("name, write, before", SYNC_WRITES)
def test_sync_is_refused_without_power_fail_safe(unordered_disk_db, name,
                                                 write, before):
    db = unordered_disk_db
    prepare(db, before)
    with pytest.raises(plush.NotSupportedError,
                       match=f"^{re.escape(UNORDERED)}$"):
        write(db, sync=True)
    assert db.get(key(1)) == before, name  # nothing was written
    write(db)  # without sync, the write is made
    assert db.get(key(1)) != before, name


def test_refused_batch_keeps_its_operations(shm_db):
    batch = shm_db.write_batch(sync=True)
    batch.put(key(1), value(1))
    with pytest.raises(plush.NotSupportedError,
                       match=f"^{re.escape(IN_MEMORY)}$"):
        batch.commit()
    assert len(batch) == 1
    with pytest.raises(plush.NotSupportedError,
                       match=f"^{re.escape(IN_MEMORY)}$"):
        with shm_db.write_batch(sync=True) as batch:
            batch.put(key(2), value(2))
    assert key(1) not in shm_db and key(2) not in shm_db


@pytest.mark.parametrize("name, write, before", SYNC_WRITES)
def test_sync_of_wrong_type(db, name, write, before):
    prepare(db, before)
    with pytest.raises(TypeError,
                       match=f"^{name}\\(\\): sync must be a bool, not int$"):
        write(db, sync=1)
    assert db.get(key(1)) == before, name




def test_power_fail_safe_pool_syncs_every_write(tmp_path):
    """power_fail_safe=True: every barrier is an msync, so a write without
    sync is synced too, and the stats say writes survive power failure."""
    with pool_on_disk(tmp_path, power_fail_safe=True) as db:
        stats = db.stats()
        assert stats["power_fail_durable"] is True
        assert stats["guarantee"] == (
            "acknowledged writes survive power failure (power_fail_safe: "
            "every persistence barrier is an msync)")
        synced = syncs(db)
        db.put(key(1), value(1))
        assert syncs(db) > synced
        assert db.get(key(1)) == value(1)
