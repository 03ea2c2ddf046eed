"""Concurrent use from Python threads (the bindings release the GIL)."""

import threading

import plush
from conftest import key, value

THREADS = 4
PER_THREAD = 500


def run_threads(target):
    """Runs target(thread_index) on THREADS threads; re-raises any error."""
    errors = []

    def wrapper(index):
        try:
            target(index)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=wrapper, args=(i,))
               for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def test_concurrent_writers_and_readers(db):
    def work(index):
        base = index * PER_THREAD
        for i in range(base, base + PER_THREAD):
            db.put(key(i), value(i), log=i % 2 == 0)
            assert db[key(i)] == value(i)

    run_threads(work)
    for i in range(THREADS * PER_THREAD):
        assert db[key(i)] == value(i)


def test_concurrent_writes_to_the_same_keys(db):
    def work(index):
        for i in range(PER_THREAD):
            db[key(i % 50)] = b"t%07d" % index

    run_threads(work)
    writers = {b"t%07d" % i for i in range(THREADS)}
    assert all(db[key(i)] in writers for i in range(50))


def test_checkpoint_while_writing(db):
    def work(index):
        if index == 0:
            for _ in range(20):
                db.checkpoint()
        else:
            for i in range(PER_THREAD):
                db.put(key(index * PER_THREAD + i), value(i), log=False)

    run_threads(work)
    assert db.verify() is not None


def test_close_while_others_work_never_crashes(db):
    started = threading.Barrier(THREADS)

    def work(index):
        started.wait()
        if index == 0:
            db.close()
            return
        try:
            for i in range(PER_THREAD):
                db[key(i)] = value(i)
                db.get(key(i))
        except plush.InvalidArgumentError:
            pass  # closed under our feet, as expected

    run_threads(work)
    assert db.closed
