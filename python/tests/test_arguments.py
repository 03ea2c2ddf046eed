"""Every method called with arguments of the wrong type or value raises a
one-line TypeError or ValueError naming the method and the argument, and
leaves the interpreter and the DB working (wrong scan arguments used to
kill the interpreter)."""

import pytest

import plush
from conftest import key, value

# (call, exception, message) for every method that takes arguments.
WRONG_CALLS = [
    (lambda db: db.put("k", b"v"), TypeError, r"^put\(\): key must be bytes, not str$"),
    (lambda db: db.put(b"k", 1), TypeError, r"^put\(\): value must be bytes, not int$"),
    (lambda db: db.put(b"k", b"v", log=1), TypeError, r"^put\(\): log must be a bool, not int$"),
    (lambda db: db.get(None), TypeError, r"^get\(\): key must be bytes, not NoneType$"),
    (lambda db: db.get_many(b"ab"), TypeError, r"^get_many\(\): every key must be bytes, not int$"),
    (lambda db: db.get_many([b"a", "b"]), TypeError, r"^get_many\(\): every key must be bytes, not str$"),
    (lambda db: db["k"], TypeError, r"^__getitem__\(\): key must be bytes"),
    (lambda db: "k" in db, TypeError, r"^__contains__\(\): key must be bytes"),
    (lambda db: db.delete(1), TypeError, r"^delete\(\): key must be bytes, not int$"),
    (lambda db: db.delete(b"k", log="no"), TypeError, r"^delete\(\): log must be a bool"),
    (lambda db: db.__delitem__(2.5), TypeError, r"^__delitem__\(\): key must be bytes"),
    (lambda db: db.scan(start="a"), TypeError, r"^scan\(\): start must be bytes, not str$"),
    (lambda db: db.scan(start=1), TypeError, r"^scan\(\): start must be bytes, not int$"),
    (lambda db: db.scan(end="z"), TypeError, r"^scan\(\): end must be bytes, not str$"),
    (lambda db: db.scan(limit=-1), ValueError, r"^scan\(\): limit must not be negative$"),
    (lambda db: db.scan(limit="x"), TypeError, r"^scan\(\): limit must be an int, not str$"),
    (lambda db: db.scan(limit=2**64), ValueError, r"^scan\(\): limit must be at most 18446744073709551615$"),
    (lambda db: db.scan(limit=1.5), TypeError, r"^scan\(\): limit must be an int, not float$"),
    (lambda db: db.scan(limit=True), TypeError, r"^scan\(\): limit must be an int, not bool$"),
    (lambda db: db.checkpoint(-1), ValueError, r"^checkpoint\(\): threads must not be negative$"),
    (lambda db: db.checkpoint("2"), TypeError, r"^checkpoint\(\): threads must be an int"),
    (lambda db: db.checkpoint(5000), ValueError, r"^checkpoint\(\): threads must be at most 1024$"),
    (lambda db: db.increment("k"), TypeError, r"^increment\(\): key must be bytes"),
    (lambda db: db.increment(b"k", 1.0), TypeError, r"^increment\(\): delta must be an int, not float$"),
    (lambda db: db.increment(b"k", 2**63), ValueError, r"^increment\(\): delta does not fit a signed 64-bit integer$"),
    (lambda db: db.setdefault(b"k", "v"), TypeError, r"^setdefault\(\): default must be bytes"),
    (lambda db: db.update(5), TypeError, r"^update\(\): expected a mapping or an iterable of \(key, value\) pairs$"),
    (lambda db: db.update([b"kvx"]), TypeError, r"^update\(\): every item must be a \(key, value\) pair$"),
    (lambda db: db.update({b"k": "v"}), TypeError, r"^update\(\): value must be bytes, not str$"),
    (lambda db: db.write_batch(log=None), TypeError, r"^write_batch\(\): log must be a bool"),
    (lambda db: db.write_batch().put(b"k", None), TypeError, r"^WriteBatch.put\(\): value must be bytes"),
    (lambda db: db.write_batch().delete([]), TypeError, r"^WriteBatch.delete\(\): key must be bytes"),
    (lambda db: db.expire("k", ttl=1), TypeError, r"^expire\(\): key must be bytes, not str$"),
    (lambda db: db.persist(1), TypeError, r"^persist\(\): key must be bytes, not int$"),
    (lambda db: db.ttl("k"), TypeError, r"^ttl\(\): key must be bytes, not str$"),
    (lambda db: db.expires_at(None), TypeError, r"^expires_at\(\): key must be bytes, not NoneType$"),
    (lambda db: db.backup(None), TypeError, r"^backup\(\): path must be str or os.PathLike, not NoneType$"),
]


@pytest.mark.parametrize("call, error, message", WRONG_CALLS)
@pytest.mark.parametrize("kind", ["hash", "range"])
def test_wrong_arguments_raise_and_leave_the_db_working(tmp_path, call, error,
                                                        message, kind):
    with plush.open(tmp_path / "p.pool", small=True,
                    partitioning=kind) as db:
        db[key(1)] = value(1)
        with pytest.raises(error, match=message):
            result = call(db)
            next(iter(result))  # a scan converts its arguments when made
        assert db[key(1)] == value(1)
        assert list(db.scan(limit=1)) == [(key(1), value(1))]


def test_open_path_of_wrong_type(tmp_path):
    with pytest.raises(TypeError,
                       match=r"^open\(\): path must be str or os.PathLike, not int$"):
        plush.open(3)


def test_messages_are_one_line(db):
    # pybind11 would list every overload's signature; ours name the argument.
    with pytest.raises(TypeError) as info:
        db.put(1, 2)
    assert "\n" not in str(info.value)
