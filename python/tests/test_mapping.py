"""The mapping protocol and the explicit put/get/delete methods."""

import pytest

import plush
from conftest import key, value


def test_set_get_contains(db):
    db[key(1)] = value(1)
    assert db[key(1)] == value(1)
    assert key(1) in db
    assert key(2) not in db


def test_overwrite_keeps_newest(db):
    db[key(1)] = value(1)
    db[key(1)] = value(2)
    assert db[key(1)] == value(2)


def test_missing_key_raises_key_error_with_the_key(db):
    with pytest.raises(KeyError) as info:
        db[key(9)]
    assert info.value.args == (key(9),)


def test_get_returns_default(db):
    assert db.get(key(9)) is None
    assert db.get(key(9), b"fallback") == b"fallback"
    db.put(key(9), value(9))
    assert db.get(key(9), b"fallback") == value(9)


def test_del_removes_and_raises_key_error_when_missing(db):
    db[key(1)] = value(1)
    del db[key(1)]
    assert key(1) not in db
    with pytest.raises(KeyError):
        del db[key(1)]


def test_delete_of_missing_key_is_fine(db):
    db.delete(key(1))
    db.delete(key(1), log=False)


def test_unlogged_put_and_delete(db):
    db.put(key(1), value(1), log=False)
    assert db[key(1)] == value(1)
    db.delete(key(1), log=False)
    assert key(1) not in db


def test_not_found_is_not_a_plush_error():
    assert not issubclass(KeyError, plush.Error)


@pytest.mark.parametrize("bad", ["text", 42, None, 1.5])
def test_keys_and_values_must_be_bytes(db, bad):
    name = type(bad).__name__
    with pytest.raises(TypeError, match=f"key must be bytes, not {name}$"):
        db[bad] = value(1)
    with pytest.raises(TypeError, match=f"value must be bytes, not {name}$"):
        db[key(1)] = bad
    with pytest.raises(TypeError, match=f"^get\\(\\): key must be bytes"):
        db.get(bad)


def test_any_contiguous_buffer_is_a_key_or_value(db):
    db[bytearray(b"k0000001")] = memoryview(b"v0000001")
    assert db[memoryview(bytearray(b"k0000001"))] == b"v0000001"


@pytest.mark.parametrize("k, v", [(b"", b""), (b"short", b"a longer value"),
                                  (b"x" * 100, b"y" * 5000),
                                  (b"k" * plush.MAX_KEY_SIZE,
                                   b"v" * plush.MAX_VALUE_SIZE)])
def test_other_sizes_round_trip(db, k, v):
    db[k] = v
    assert db[k] == v
    del db[k]
    assert k not in db


def test_a_key_switches_between_inline_and_payload_records(db):
    db[key(1)] = value(1)
    db[key(1)] = b"a value longer than eight bytes"
    assert db[key(1)] == b"a value longer than eight bytes"
    db[key(1)] = value(2)
    assert db[key(1)] == value(2)


def test_oversized_records_are_refused(db):
    # The message names the size given and the limit, in bytes.
    with pytest.raises(plush.InvalidArgumentError) as error:
        db[b"k" * (plush.MAX_KEY_SIZE + 1)] = value(1)
    assert str(error.value) == "key of 1025 bytes exceeds the limit of 1024 bytes"
    with pytest.raises(plush.InvalidArgumentError) as error:
        db[key(1)] = b"v" * (plush.MAX_VALUE_SIZE + 1)
    assert str(error.value) == (
        "value of 65537 bytes exceeds the limit of 65536 bytes")
    assert key(1) not in db
