"""Expiry: put(..., expires_at=, ttl=), expire(), persist(), ttl(),
expires_at(), and the same on write batches and update().

TTLs are short (SHORT seconds) so that the file runs in a few seconds;
the checks before they pass allow the test machine to be slow.
"""

import math
import time

import pytest

import plush
from conftest import key, value

SHORT = 0.2  # seconds: long enough to check a record before it expires
LONG = 3600.0  # seconds: does not expire during a test


def wait_until_expired(written):
    """Sleeps until records written with ttl=SHORT by calls that returned
    by `written` (a time.time()) have expired: each expires at most SHORT
    after its call, and is gone from the next millisecond on."""
    time.sleep(max(0.0, written + SHORT + 0.002 - time.time()) + 0.01)


def test_put_with_ttl_expires(db):
    start = time.time()
    db.put(key(1), value(1), ttl=SHORT)
    written = time.time()
    db[key(2)] = value(2)
    left = db.ttl(key(1))
    if time.time() - start < SHORT:  # else the machine was too slow to tell
        assert db[key(1)] == value(1)
        assert 0.0 < left <= SHORT
    wait_until_expired(written)
    assert db.get(key(1)) is None
    assert key(1) not in db
    with pytest.raises(KeyError):
        db[key(1)]
    with pytest.raises(KeyError):
        db.ttl(key(1))
    assert list(db.items()) == [(key(2), value(2))]
    assert db.get_many([key(1), key(2)]) == [None, value(2)]


def test_put_with_expires_at_keeps_it_to_the_millisecond(db):
    at = time.time() + LONG
    db.put(key(1), value(1), expires_at=at)
    assert db.expires_at(key(1)) == round(at * 1000) / 1000
    # (at rounds to the nearest millisecond, possibly up.)
    assert LONG - 60 < db.ttl(key(1)) <= LONG + 0.001
    db.put(key(2), value(2), expires_at=int(at))  # an int is seconds too
    assert db.expires_at(key(2)) == int(at)


def test_a_time_already_past_writes_an_absent_record(db):
    db[key(1)] = value(1)
    db.put(key(1), b"new", expires_at=time.time() - 10)
    assert key(1) not in db  # it also hides the older value
    # 0 is the Unix epoch, long past, not "never" (the engine's 0).
    db.put(key(2), value(2), expires_at=0)
    assert key(2) not in db
    db.put(key(3), value(3), ttl=0)  # gone after the current millisecond
    time.sleep(0.01)
    assert key(3) not in db


def test_a_put_without_expiry_removes_it(db):
    db.put(key(1), value(1), ttl=LONG)
    db.put(key(1), b"again")
    assert db.ttl(key(1)) is None
    db.put(key(1), value(1), ttl=LONG)
    db[key(1)] = b"again"
    assert db.expires_at(key(1)) is None


def test_keys_without_expiry_and_missing_keys(db):
    db[key(1)] = value(1)
    assert db.ttl(key(1)) is None
    assert db.expires_at(key(1)) is None
    with pytest.raises(KeyError) as info:
        db.ttl(key(2))
    assert info.value.args == (key(2),)
    with pytest.raises(KeyError) as info:
        db.expires_at(bytearray(key(2)))
    assert info.value.args == (key(2),)


def test_expire_and_persist(db):
    assert db.expire(key(1), ttl=LONG) is False  # absent: nothing written
    assert key(1) not in db
    assert db.persist(key(1)) is False
    db[key(1)] = value(1)
    assert db.expire(key(1), ttl=LONG) is True
    assert db[key(1)] == value(1)  # the value stays
    assert LONG - 60 < db.ttl(key(1)) <= LONG
    at = time.time() + 2 * LONG
    assert db.expire(key(1), expires_at=at, sync=False) is True
    assert db.expires_at(key(1)) == round(at * 1000) / 1000
    assert db.persist(key(1)) is True
    assert db.ttl(key(1)) is None
    assert db.persist(key(1)) is True  # no expiry to remove: still there
    assert db[key(1)] == value(1)


def test_an_expired_key_cannot_be_brought_back(db):
    start = time.time()
    db.put(key(1), value(1), ttl=SHORT)
    assert db.expire(key(1), ttl=LONG) or time.time() - start >= SHORT
    db.put(key(2), value(2), ttl=SHORT)
    wait_until_expired(time.time())
    assert db.expire(key(2), ttl=LONG) is False
    assert db.persist(key(2)) is False
    assert key(2) not in db


def test_increment_and_setdefault_keep_the_expiry(db):
    at = time.time() + LONG
    db.put(b"counter", (5).to_bytes(8, "little"), expires_at=at)
    assert db.increment(b"counter") == 6
    assert db.expires_at(b"counter") == round(at * 1000) / 1000
    db.put(key(1), value(1), expires_at=at)
    assert db.setdefault(key(1), b"other") == value(1)
    assert db.expires_at(key(1)) == round(at * 1000) / 1000


def test_write_batch_puts_with_their_own_expiry(db):
    at = time.time() + LONG
    start = time.time()
    with db.write_batch() as batch:
        batch.put(key(1), value(1), ttl=SHORT)
        written = time.time()
        batch.put(key(2), value(2), expires_at=at)
        batch.put(key(3), value(3))
        batch.delete(key(4))
        assert len(batch) == 4
    assert db.expires_at(key(2)) == round(at * 1000) / 1000
    assert db.ttl(key(3)) is None
    if time.time() - start < SHORT:
        assert db[key(1)] == value(1)
    wait_until_expired(written)
    assert key(1) not in db
    assert db[key(2)] == value(2) and db[key(3)] == value(3)


def test_update_gives_every_pair_the_expiry(db):
    at = time.time() + LONG
    db.update({key(i): value(i) for i in range(10)}, expires_at=at)
    assert {db.expires_at(key(i)) for i in range(10)} == {
        round(at * 1000) / 1000}
    db.update([(key(i), value(i)) for i in range(10, 20)], ttl=SHORT)
    wait_until_expired(time.time())
    assert db.get_many([key(i) for i in range(10, 20)]) == [None] * 10


def test_expired_records_never_appear_in_scans(range_db):
    range_db.update({key(i): value(i) for i in range(0, 20, 2)}, ttl=SHORT)
    written = time.time()
    range_db.update({key(i): value(i) for i in range(1, 20, 2)})
    wait_until_expired(written)
    odd = [(key(i), value(i)) for i in range(1, 20, 2)]
    assert list(range_db.scan()) == odd
    assert list(range_db.scan(start=key(4), limit=2)) == odd[2:4]
    assert list(range_db.keys()) == [k for k, _ in odd]


def test_reopen_keeps_the_expiry(pool_path):
    at = time.time() + LONG
    with plush.open(pool_path, small=True) as db:
        db.put(key(1), value(1), expires_at=at)
        db.put(key(2), value(2), ttl=SHORT, log=False)
        written = time.time()
        db.checkpoint()
        with db.write_batch() as batch:
            batch.put(key(3), value(3), expires_at=at)
    with plush.open(pool_path) as db:
        assert db.expires_at(key(1)) == round(at * 1000) / 1000
        assert db.expires_at(key(3)) == round(at * 1000) / 1000
        wait_until_expired(written)
        assert key(2) not in db
        assert db[key(1)] == value(1)


def test_large_records_expire_too(db):
    start = time.time()
    big = b"v" * 5000
    db.put(b"a longer key", big, ttl=SHORT)
    written = time.time()
    if time.time() - start < SHORT:
        assert db[b"a longer key"] == big
    wait_until_expired(written)
    assert b"a longer key" not in db


def test_a_pool_without_payload_logs_refuses_expiry(tmp_path):
    with plush.open(tmp_path / "p.pool", small=True,
                    payload_log_count=0) as db:
        with pytest.raises(plush.NotSupportedError):
            db.put(key(1), value(1), ttl=LONG)
        assert key(1) not in db


# (call, exception, message) for every wrong expiry argument.
WRONG_EXPIRY = [
    (lambda db: db.put(key(1), value(1), expires_at=1, ttl=1), TypeError,
     r"^put\(\): give expires_at or ttl, not both$"),
    (lambda db: db.put(key(1), value(1), ttl=-1), ValueError,
     r"^put\(\): ttl must not be negative$"),
    (lambda db: db.put(key(1), value(1), ttl=-0.5), ValueError,
     r"^put\(\): ttl must not be negative$"),
    (lambda db: db.put(key(1), value(1), ttl=math.nan), ValueError,
     r"^put\(\): ttl must not be NaN$"),
    (lambda db: db.put(key(1), value(1), ttl=math.inf), ValueError,
     r"^put\(\): ttl is too large: the expiry must fit 64-bit Unix "
     r"milliseconds$"),
    (lambda db: db.put(key(1), value(1), ttl=18446744073709551), ValueError,
     r"^put\(\): ttl is too large"),
    (lambda db: db.put(key(1), value(1), ttl=10**400), ValueError,
     r"^put\(\): ttl is too large"),
    (lambda db: db.put(key(1), value(1), ttl=-10**400), ValueError,
     r"^put\(\): ttl must not be negative$"),
    (lambda db: db.put(key(1), value(1), ttl="5"), TypeError,
     r"^put\(\): ttl must be an int or a float \(seconds\), not str$"),
    (lambda db: db.put(key(1), value(1), ttl=True), TypeError,
     r"^put\(\): ttl must be an int or a float \(seconds\), not bool$"),
    (lambda db: db.put(key(1), value(1), expires_at=-1), ValueError,
     r"^put\(\): expires_at must not be negative$"),
    (lambda db: db.put(key(1), value(1), expires_at=math.nan), ValueError,
     r"^put\(\): expires_at must not be NaN$"),
    (lambda db: db.put(key(1), value(1), expires_at=2.0**64), ValueError,
     r"^put\(\): expires_at is too large: the expiry must fit 64-bit Unix "
     r"milliseconds$"),
    (lambda db: db.put(key(1), value(1), expires_at=[]), TypeError,
     r"^put\(\): expires_at must be an int or a float \(seconds\), not "
     r"list$"),
    (lambda db: db.update({key(1): value(1)}, expires_at=1, ttl=1),
     TypeError, r"^update\(\): give expires_at or ttl, not both$"),
    (lambda db: db.update({key(1): value(1)}, ttl=-1), ValueError,
     r"^update\(\): ttl must not be negative$"),
    (lambda db: db.write_batch().put(key(1), value(1), expires_at=1, ttl=1),
     TypeError, r"^WriteBatch.put\(\): give expires_at or ttl, not both$"),
    (lambda db: db.write_batch().put(key(1), value(1), ttl=math.nan),
     ValueError, r"^WriteBatch.put\(\): ttl must not be NaN$"),
    (lambda db: db.expire(key(1)), TypeError,
     r"^expire\(\): give expires_at or ttl \(persist\(\) removes an "
     r"expiry\)$"),
    (lambda db: db.expire(key(1), expires_at=1, ttl=1), TypeError,
     r"^expire\(\): give expires_at or ttl, not both$"),
    (lambda db: db.expire(key(1), ttl=-1), ValueError,
     r"^expire\(\): ttl must not be negative$"),
    (lambda db: db.expire(key(1), expires_at="soon"), TypeError,
     r"^expire\(\): expires_at must be an int or a float \(seconds\), not "
     r"str$"),
    (lambda db: db.expire(key(1), ttl=1, sync=1), TypeError,
     r"^expire\(\): sync must be a bool, not int$"),
    (lambda db: db.persist(key(1), sync=None), TypeError,
     r"^persist\(\): sync must be a bool, not NoneType$"),
]


@pytest.mark.parametrize("call, error, message", WRONG_EXPIRY)
def test_wrong_expiry_arguments_raise_and_write_nothing(db, call, error,
                                                        message):
    db[key(1)] = b"before"
    with pytest.raises(error, match=message):
        call(db)
    assert db[key(1)] == b"before"
    assert db.ttl(key(1)) is None
