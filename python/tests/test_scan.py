"""Scans and iteration: key order on range pools, every record once in
unspecified order on hash pools."""

import pytest

import plush
from conftest import key, value


def records_of(db, **kwargs):
    return list(db.scan(**kwargs))


def test_hash_pool_iterates_every_live_record_once(db):
    assert db.stats()["partitioning"] == "hash"
    count = 3000  # enough to migrate into several levels
    for i in range(count):
        db[key(i)] = value(i)
    for i in range(0, count, 7):
        db[key(i)] = b"newer%03d" % (i % 1000)
    for i in range(0, count, 5):
        del db[key(i)]
    expected = {key(i): (b"newer%03d" % (i % 1000) if i % 7 == 0 else value(i))
                for i in range(count) if i % 5}
    records = records_of(db)
    assert len(records) == len(expected)
    assert dict(records) == expected
    assert sorted(db.keys()) == sorted(expected)
    assert sorted(db) == sorted(expected)
    assert sorted(db.values()) == sorted(expected.values())
    assert len(records_of(db, limit=10)) == 10


def test_hash_pool_cannot_seek(db):
    db[key(1)] = value(1)
    # The message names the arguments of scan(), not the engine's calls.
    tail = (" a range-partitioned pool (one created with partitioning=\"range\"); "
            "this one is hash-partitioned: its keys have no order, so scan it "
            "without start and end")
    for arguments, given in (({"start": key(1)}, "start needs"),
                             ({"end": key(2)}, "end needs"),
                             ({"start": key(1), "end": key(2)},
                              "start and end need")):
        with pytest.raises(plush.NotSupportedError) as error:
            next(db.scan(**arguments))
        assert str(error.value) == f"scan(): {given}{tail}"


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


def test_scan_stops_before_end(range_db):
    for i in range(1000):  # several units and batches
        range_db[key(i)] = value(i)
    assert records_of(range_db, start=key(10), end=key(13)) == [
        (key(i), value(i)) for i in (10, 11, 12)]
    assert [k for k, _ in range_db.scan(end=key(600))] == [
        key(i) for i in range(600)]
    assert records_of(range_db, start=key(5), end=key(900), limit=2) == [
        (key(5), value(5)), (key(6), value(6))]
    assert records_of(range_db, start=key(13), end=key(10)) == []


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


def test_one_scan_reads_each_unit_once(tmp_path):
    # Regression: every batch of 256 opened a new iterator and seeked again,
    # and each seek reads a whole unit: quadratic on skewed keys (200k
    # records took 28 s). One iterator serves a scan now, so a unit is read
    # once, as one snapshot: a key written into it after the scan read it
    # does not appear (a fresh seek per batch would have found it).
    with plush.open(tmp_path / "skew.pool", small=True,
                    partitioning="range", range_rebalance=False) as db:
        count = 2000  # one unit: the keys share their leading bytes
        for i in range(count):
            db.put(b"user:%08d" % i, b"v", log=False)
        scan = db.scan()
        assert next(scan) == (b"user:%08d" % 0, b"v")
        db[b"user:%08dx" % 1000] = b"late"
        rest = [k for k, _ in scan]
        assert len(rest) == count - 1
        assert b"user:%08dx" % 1000 not in rest


def test_scan_outlives_close_safely(range_db):
    for i in range(600):
        range_db[key(i)] = value(i)
    scan = range_db.scan()
    next(scan)
    range_db.close()
    with pytest.raises(plush.InvalidArgumentError):
        for _ in scan:  # the rest of the first batch, then the closed DB
            pass


def test_range_key_sample_spreads_shared_prefix_keys(tmp_path):
    keys = [b"user:%08d" % i for i in range(4000)]
    path = tmp_path / "sampled.pool"
    with plush.open(path, small=True, partitioning="range",
                    dram_directory_bits=4, range_rebalance=False,
                    range_key_sample=keys[::10]) as db:
        for k in keys:
            db[k] = b"v"
        stats = db.stats()
        assert stats["range_units"] == "adaptive"
        assert stats["range_rebalances"] == 0
        assert stats["unit_records_min"] > 0
        assert stats["unit_records_max"] < 2 * stats["unit_records_median"]
        assert [k for k, _ in db.scan(start=keys[2000], limit=3)] == keys[2000:2003]
    # An existing pool keeps its map; the sample is not checked.
    with plush.open(path, small=True, range_key_sample=[b"x"],
                    range_rebalance=False) as db:
        assert db.stats()["unit_records_min"] > 0


def test_range_pools_rebalance_keys_that_share_a_prefix(tmp_path):
    keys = [b"user:%08d" % i for i in range(4000)]
    with plush.open(tmp_path / "adaptive.pool", small=True,
                    partitioning="range", dram_directory_bits=4) as db:
        for k in keys:
            db[k] = b"v"
        db.rebalance()
        stats = db.stats()
        assert stats["range_rebalances"] > 0
        assert stats["unit_records_median"] > 0
        assert stats["unit_records_max"] < 4 * stats["unit_records_median"]
        assert [k for k, _ in db.scan()] == keys
        assert db.rebalance() >= 0


def test_rebalance_of_a_hash_pool_is_not_supported(tmp_path):
    with plush.open(tmp_path / "hash.pool", small=True) as db:
        with pytest.raises(plush.NotSupportedError,
                           match="re-balancing needs a range pool"):
            db.rebalance()


def test_range_key_sample_is_an_iterable_of_keys(tmp_path):
    with pytest.raises(TypeError, match="range_key_sample"):
        plush.open(tmp_path / "a.pool", partitioning="range",
                   range_key_sample=b"one key")
    with pytest.raises(TypeError, match="range_key_sample item"):
        plush.open(tmp_path / "b.pool", partitioning="range",
                   range_key_sample=[b"a", 3])
    with pytest.raises(plush.InvalidArgumentError,
                       match="range_key_sample applies to range partitioning"):
        plush.open(tmp_path / "c.pool", range_key_sample=[b"a"])
