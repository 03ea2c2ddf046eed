"""The exception hierarchy, and which errors the engine's statuses raise."""

import subprocess
import sys

import pytest

import plush


@pytest.mark.parametrize("cls", [
    plush.CorruptionError, plush.BusyError, plush.NoSpaceError,
    plush.NotSupportedError, plush.InvalidArgumentError, plush.IOError])
def test_every_error_is_a_plush_error(cls):
    assert issubclass(cls, plush.Error)


def test_builtin_bases():
    assert issubclass(plush.InvalidArgumentError, ValueError)
    assert issubclass(plush.IOError, OSError)
    assert plush.IOError is not OSError


def test_busy_when_open_twice_in_one_process(pool_path, db):
    with pytest.raises(plush.BusyError):
        plush.open(pool_path)


def test_busy_when_open_in_another_process(pool_path, db):
    code = ("import plush, sys\n"
            "try:\n"
            "    plush.open(sys.argv[1])\n"
            "except plush.BusyError:\n"
            "    sys.exit(42)\n")
    result = subprocess.run([sys.executable, "-c", code, str(pool_path)],
                            check=False)
    assert result.returncode == 42


def test_released_pool_can_be_opened_again(pool_path, db):
    db.close()
    with plush.open(pool_path):
        pass


def test_error_if_exists(pool_path, db):
    db.close()
    with pytest.raises(plush.InvalidArgumentError):
        plush.open(pool_path, error_if_exists=True)


def test_missing_pool_without_create(tmp_path):
    with pytest.raises(plush.InvalidArgumentError):
        plush.open(tmp_path / "missing.pool", create_if_missing=False)


def test_unknown_option_is_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="colour"):
        plush.open(tmp_path / "p.pool", colour="blue")
    assert not (tmp_path / "p.pool").exists()


@pytest.mark.parametrize("options", [{"log_count": -1}, {"fanout_bits": "4"},
                                     {"small": "yes"}])
def test_option_of_wrong_type_is_a_type_error(tmp_path, options):
    with pytest.raises(TypeError):
        plush.open(tmp_path / "p.pool", **options)


@pytest.mark.parametrize("options", [
    {"backend": "tape"}, {"partitioning": "sorted"},
    {"required_granularity": "word"}])
def test_unknown_enum_value_is_invalid_argument(tmp_path, options):
    with pytest.raises(plush.InvalidArgumentError, match="expected one of"):
        plush.open(tmp_path / "p.pool", **options)


def test_calls_after_close_raise_invalid_argument(db):
    db.close()
    for call in (lambda: db[b"k0000001"], lambda: db.put(b"k", b"v"),
                 db.checkpoint, db.sync, db.verify, db.stats,
                 lambda: list(db.items())):
        with pytest.raises(plush.InvalidArgumentError, match="closed"):
            call()


def test_damaged_pool_raises_corruption(pool_path, db):
    db.close()
    with open(pool_path, "r+b") as pool:
        pool.write(b"not a plush superblock")
    with pytest.raises(plush.CorruptionError):
        plush.open(pool_path)
