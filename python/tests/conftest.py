"""Shared fixtures: small pools in a per-test directory.

Core tests use 8-byte keys and values (the engine's inline fast path);
test_mapping.py also covers the other sizes (payload logs).
"""

import pytest

import plush


def key(i):
    """The i-th 8-byte test key."""
    return b"k%07d" % i


def value(i):
    """The i-th 8-byte test value."""
    return b"v%07d" % i


@pytest.fixture
def pool_path(tmp_path):
    return tmp_path / "test.pool"


@pytest.fixture
def db(pool_path):
    with plush.open(pool_path, small=True) as handle:
        yield handle


@pytest.fixture
def range_db(tmp_path):
    with plush.open(tmp_path / "range.pool", small=True,
                    partitioning="range") as handle:
        yield handle
