"""Ordered scans: range-partitioned pools only."""

import pytest

import plush
from conftest import key, value


def records_of(db, **kwargs):
    return list(db.scan(**kwargs))


def test_hash_pool_cannot_scan(db):
    assert db.stats()["partitioning"] == "hash"
    db[key(1)] = value(1)
    for make in (db.scan, db.items, db.keys, db.values, lambda: iter(db)):
        with pytest.raises(plush.NotSupportedError):
            next(make())


def test_scan_yields_records_in_key_order(range_db):
    assert range_db.stats()["partitioning"] == "range"
    order = [5, 3, 9, 1, 7]
    for i in order:
        range_db[key(i)] = value(i)
    records = records_of(range_db)
    assert records == [(key(i), value(i)) for i in sorted(order)]


def test_scan_start_and_limit(range_db):
    for i in range(10):
        range_db[key(i)] = value(i)
    assert records_of(range_db, start=key(4), limit=3) == [
        (key(i), value(i)) for i in (4, 5, 6)]
    assert records_of(range_db, start=b"k0000004x") == [
        (key(i), value(i)) for i in range(5, 10)]
    assert records_of(range_db, limit=0) == []
    assert records_of(range_db, start=b"z") == []


def test_scan_crosses_batches_and_skips_deleted(range_db):
    count = 1000  # several of the bindings' batches
    for i in range(count):
        range_db.put(key(i), value(i), log=False)
    for i in range(0, count, 3):
        del range_db[key(i)]
    expected = [(key(i), value(i)) for i in range(count) if i % 3]
    assert records_of(range_db) == expected
    assert records_of(range_db, limit=300) == expected[:300]


def test_items_keys_values_iter(range_db):
    for i in (2, 1):
        range_db[key(i)] = value(i)
    assert list(range_db.items()) == [(key(1), value(1)), (key(2), value(2))]
    assert list(range_db.keys()) == [key(1), key(2)]
    assert list(range_db.values()) == [value(1), value(2)]
    assert list(range_db) == [key(1), key(2)]
    assert dict(range_db.items()) == {key(1): value(1), key(2): value(2)}


def test_scan_outlives_close_safely(range_db):
    for i in range(600):
        range_db[key(i)] = value(i)
    scan = range_db.scan()
    next(scan)
    range_db.close()
    with pytest.raises(plush.InvalidArgumentError):
        for _ in scan:  # the rest of the first batch, then the closed DB
            pass
