"""Write batches, read-modify-write and MultiGet."""

import threading

import pytest

import plush
from conftest import key, value


def test_write_batch_commits_at_the_end_of_the_block(db):
    db[key(9)] = value(9)
    with db.write_batch() as batch:
        for i in range(100):
            batch.put(key(i), value(i))
        batch.delete(key(9))
        batch.put(key(0), b"last one")  # the later write of a key wins
        assert len(batch) == 102
        assert key(1) not in db  # nothing before the commit
    assert db[key(0)] == b"last one"
    assert all(db[key(i)] == value(i) for i in range(1, 9))
    assert key(9) not in db


def test_write_batch_is_discarded_when_the_block_raises(db):
    with pytest.raises(RuntimeError, match="boom"):
        with db.write_batch() as batch:
            batch.put(key(1), value(1))
            raise RuntimeError("boom")
    assert key(1) not in db


def test_write_batch_commit_by_hand_and_reuse(db):
    batch = db.write_batch(log=False)
    batch.put(key(1), value(1))
    batch.commit()
    assert len(batch) == 0
    batch.put(key(2), value(2))
    batch.commit()
    assert db[key(1)] == value(1) and db[key(2)] == value(2)


def test_a_failed_batch_writes_nothing(db):
    with pytest.raises(plush.InvalidArgumentError, match="value of 65537 bytes"):
        with db.write_batch() as batch:
            batch.put(key(1), value(1))
            batch.put(key(2), b"x" * (plush.MAX_VALUE_SIZE + 1))
    assert key(1) not in db


def test_batches_survive_reopen(pool_path):
    with plush.open(pool_path, small=True) as db:
        db.update({key(i): value(i) for i in range(50)})
        db.update([(key(i), b"again") for i in range(10)])
    with plush.open(pool_path) as db:
        assert [db[key(i)] for i in range(10)] == [b"again"] * 10
        assert all(db[key(i)] == value(i) for i in range(10, 50))


def test_batches_of_any_size_commit_wherever_their_keys_fall(tmp_path):
    # More pairs than a small pool's recovery-log chunk holds (167), and
    # more keys of one prefix than a range pool's DRAM entry holds (32):
    # both used to be refused (issue 27).
    with plush.open(tmp_path / "hash.pool", small=True) as db:
        db.update({key(i): value(i) for i in range(1000)})
        assert all(db[key(i)] == value(i) for i in range(1000))
    users = [b"user:%08d" % i for i in range(300)]
    with plush.open(tmp_path / "range.pool", small=True,
                    partitioning="range") as db:
        db.update({k: b"v" for k in users})
        assert [k for k, _ in db.scan(start=b"user:")] == users
    with plush.open(tmp_path / "hash.pool") as db:
        assert all(db[key(i)] == value(i) for i in range(1000))
    with plush.open(tmp_path / "range.pool") as db:
        assert [k for k, _ in db.scan(start=b"user:")] == users


def test_a_batch_over_max_batch_records_is_refused(db):
    with pytest.raises(plush.InvalidArgumentError,
                       match="exceeds the limit of %d" % plush.MAX_BATCH_RECORDS):
        db.update({key(i): value(i) for i in range(plush.MAX_BATCH_RECORDS + 1)})
    assert key(0) not in db


def test_increment(db):
    assert db.increment(b"counter") == 1
    assert db.increment(b"counter", 41) == 42
    assert db.increment(b"counter", delta=-50) == -8
    assert db[b"counter"] == (-8).to_bytes(8, "little", signed=True)
    db[b"text"] = b"abc"
    with pytest.raises(plush.InvalidArgumentError, match="8-byte"):
        db.increment(b"text")


def test_increment_from_threads_loses_nothing(db):
    def add():
        for _ in range(500):
            db.increment(b"shared")
    threads = [threading.Thread(target=add) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert db.increment(b"shared", 0) == 2000


def test_setdefault(db):
    assert db.setdefault(key(1), value(1)) == value(1)
    assert db.setdefault(key(1), b"other") == value(1)
    assert db[key(1)] == value(1)


def test_get_many(db):
    db.update({key(i): value(i) for i in range(0, 40, 2)})
    db[b"a longer key"] = b"a longer value"
    keys = [key(i) for i in range(40)] + [b"a longer key", key(0)]
    expected = [value(i) if i % 2 == 0 else None for i in range(40)]
    assert db.get_many(keys) == expected + [b"a longer value", value(0)]
    assert db.get_many([]) == []
    assert db.get_many(iter([key(2)])) == [value(2)]
    with pytest.raises(plush.InvalidArgumentError, match="key of"):
        db.get_many([b"k" * (plush.MAX_KEY_SIZE + 1)])


def test_max_batch_records_is_exported():
    assert plush.MAX_BATCH_RECORDS > 0
