"""Opening, closing, persistence and the maintenance calls."""

import pytest

import plush
from conftest import key, value

STATS_FIELDS = {
    "backend", "power_fail_durable", "guarantee", "granularity",
    "format_version", "partitioning", "range_units", "dram_directory_bits",
    "fanout_bits",
    "first_level_fanout_bits", "preallocated_levels", "dram_filter_levels",
    "log_count", "log_chunk_size", "log_chunks_per_log", "payload_log_count",
    "payload_chunk_size", "dram_bytes", "pool_bytes", "pool_used_bytes", "pool_allocated_bytes",
    "levels", "records_per_level", "unit_records_min", "unit_records_median",
    "unit_records_max", "range_rebalances",
    "range_records_copied", "migrations", "log_compactions",
    "log_forced_migrations", "dram_migrations_background",
    "dram_migrations_inline", "log_recycles_background", "payload_chunks", "payload_bytes",
    "payload_gc_runs", "payload_gc_moved", "payload_gc_skipped",
    "persist_calls", "flushed_lines",
    "user_bytes_written", "media_bytes_written", "media_write_amp",
    "recovery_seconds", "recovered_log_entries", "syncs", "dram_rewrites",
    "log_backed_bytes", "expiry_sweeps", "expiry_subtree_sweeps",
    "expired_units_cleared"}


def test_context_manager_closes(pool_path):
    with plush.open(pool_path, small=True) as db:
        assert not db.closed
    assert db.closed
    assert "closed" in repr(db)


def test_context_manager_closes_on_error_and_propagates(pool_path):
    with pytest.raises(RuntimeError):
        with plush.open(pool_path, small=True) as db:
            raise RuntimeError("boom")
    assert db.closed


def test_close_is_idempotent(db):
    db.close()
    db.close()
    assert db.closed


def test_path_accepts_str_and_pathlike(pool_path):
    with plush.open(str(pool_path), small=True) as db:
        assert db.path == str(pool_path)
    with plush.open(pool_path) as db:
        assert db.path == str(pool_path)


def test_logged_writes_persist_across_reopen(pool_path):
    with plush.open(pool_path, small=True) as db:
        for i in range(100):
            db[key(i)] = value(i)
        del db[key(0)]
    with plush.open(pool_path, create_if_missing=False) as db:
        assert key(0) not in db
        assert all(db[key(i)] == value(i) for i in range(1, 100))


def test_unlogged_writes_persist_after_checkpoint(pool_path):
    with plush.open(pool_path, small=True) as db:
        for i in range(2000):  # enough to migrate into several levels
            db.put(key(i), value(i), log=False)
        db.checkpoint(threads=2)
    with plush.open(pool_path) as db:
        assert all(db[key(i)] == value(i) for i in range(2000))
        assert db.verify() is not None


@pytest.mark.parametrize("leave", ["close", "with"])
def test_unlogged_writes_survive_a_clean_close(pool_path, leave):
    # Regression: close() (and leaving a with block) dropped every unlogged
    # write that no checkpoint had made durable (0 of 100 survived).
    db = plush.open(pool_path, small=True)
    with db:
        for i in range(100):
            db.put(key(i), value(i), log=False)
        if leave == "close":
            db.close()
    with plush.open(pool_path) as db:
        assert [db.get(key(i)) for i in range(100)] == [
            value(i) for i in range(100)]


def test_creation_parameters_of_an_existing_pool_are_not_ignored(pool_path):
    with plush.open(pool_path, small=True) as db:
        db[key(1)] = value(1)
    with pytest.raises(plush.InvalidArgumentError,
                       match="exists with log_count=.*asked for 7"):
        plush.open(pool_path, log_count=7)
    with pytest.raises(plush.InvalidArgumentError, match="hash-partitioned"):
        plush.open(pool_path, partitioning="range")
    # The refusals released the pool. small=True is a profile for creating
    # pools: an existing one (here a default one) keeps its parameters.
    with plush.open(pool_path, small=True) as db:
        assert db[key(1)] == value(1)
    default_path = pool_path.with_name("default.pool")
    plush.open(default_path, dram_directory_bits=4).close()
    with plush.open(default_path, small=True) as db:
        assert db.stats()["dram_directory_bits"] == 4


def test_backup_copies_an_open_pool(tmp_path, db):
    for i in range(500):
        db[key(i)] = value(i)
    db.put(key(500), value(500), log=False)
    copy = tmp_path / "copy.pool"
    db.backup(copy)
    db[key(501)] = value(501)  # after the backup: not in the copy
    with pytest.raises(plush.InvalidArgumentError, match="exists"):
        db.backup(str(copy))
    with pytest.raises(TypeError, match="path must be str or os.PathLike"):
        db.backup(42)
    with plush.open(copy, create_if_missing=False) as backup:
        assert all(backup[key(i)] == value(i) for i in range(501))
        assert key(501) not in backup
        backup.verify()


@pytest.mark.parametrize("threads", [0, 1, 2])
def test_checkpoint_threads(db, threads):
    db[key(1)] = value(1)
    db.checkpoint(threads)
    db.checkpoint(threads=threads)


def test_sync(db):
    db[key(1)] = value(1)
    db.sync()


def test_verify_fresh_pool(db):
    assert isinstance(db.verify(), str)


def test_stats_has_every_field(db):
    db[key(1)] = value(1)
    stats = db.stats()
    assert set(stats) == STATS_FIELDS
    assert stats["format_version"] == plush.FORMAT_VERSION
    assert stats["backend"] in ("pmem", "file")
    assert isinstance(stats["power_fail_durable"], bool)
    assert len(stats["records_per_level"]) == stats["levels"]
    assert sum(stats["records_per_level"]) >= 1
    assert (stats["unit_records_min"] <= stats["unit_records_median"]
            <= stats["unit_records_max"])
    assert stats["unit_records_max"] >= 1
    assert stats["user_bytes_written"] >= 16


def test_options_are_applied(tmp_path):
    options = dict(backend="file", initial_pool_size=8 << 20,
                   dram_directory_bits=3, fanout_bits=2,
                   first_level_fanout_bits=2, log_count=2,
                   log_chunk_size=8192, log_chunks_per_log=4,
                   partitioning="hash", recovery_threads=1,
                   max_pool_size=1 << 30, required_granularity="page",
                   preallocated_levels=0)
    with plush.open(tmp_path / "p.pool", **options) as db:
        db[key(1)] = value(1)
        stats = db.stats()
    assert stats["backend"] == "file"
    assert stats["pool_bytes"] >= 8 << 20
