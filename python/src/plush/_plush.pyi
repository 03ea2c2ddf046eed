"""Type stubs and documentation of the compiled bindings, plush._plush."""

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Literal, TypeVar

FORMAT_VERSION: int
MAX_KEY_SIZE: int
MAX_VALUE_SIZE: int
# Most operations in one write batch; a pool's own limit may be lower (its
# recovery-log chunk must hold a logged batch): InvalidArgumentError says so.
MAX_BATCH_RECORDS: int

Key = bytes | bytearray | memoryview
"""Keys and values: bytes or any object with a contiguous buffer."""

_T = TypeVar("_T")

class Scan(Iterator[_T]):
    """Records read in batches through one engine iterator.

    Range pools: ascending key order. Hash pools: every live record once,
    in unspecified order. Each partition of the pool (DRAM entry with what
    lies below it) is a snapshot taken when the scan reaches it; a record
    written during the scan appears if its partition is read after the
    write. close() ends every scan of the DB (InvalidArgumentError).
    """

    def __iter__(self) -> Scan[_T]: ...
    def __next__(self) -> _T: ...

class DB:
    """An open pool. Safe to use from many threads at once.

    Every engine call releases the GIL. Methods raise plush.Error
    subclasses; after close() they raise InvalidArgumentError.
    """

    @property
    def path(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    def put(
        self,
        key: bytes,
        value: bytes,
        *,
        log: bool = True,
        sync: bool = False,
        expires_at: float | None = None,
        ttl: float | None = None,
    ) -> None:
        """Insert or replace. log=False skips the recovery log: faster, and
        durable only after the next checkpoint(). sync=True returns only
        once the write survives power failure (file back end: an msync
        that began after the write; concurrent sync writers share msyncs).
        It needs log=True (else InvalidArgumentError) and a pool on a disk:
        on tmpfs or ramfs (/dev/shm) it raises NotSupportedError and writes
        nothing.

        expires_at (Unix time in seconds, as time.time()) or ttl (seconds
        from now), not both (TypeError): the record is gone from then on;
        int or float, >= 0, kept to the millisecond. A time already past
        writes a record that is absent at once. Neither: the key keeps no
        expiry (a put removes one, as Redis's SET)."""
    def get(self, key: bytes, default: _T | None = None) -> bytes | _T | None:
        """The value of key, or default if it does not exist."""
    def delete(
        self, key: bytes, *, log: bool = True, sync: bool = False
    ) -> None:
        """Remove key; removing a missing key is not an error. log and
        sync: as for put()."""
    def __getitem__(self, key: bytes) -> bytes:
        """The value of key; KeyError if it does not exist."""
    def __setitem__(self, key: bytes, value: bytes) -> None: ...
    def __delitem__(self, key: bytes) -> None:
        """Remove key; KeyError if it does not exist."""
    def __contains__(self, key: bytes) -> bool: ...
    def get_many(self, keys: Iterable[Key]) -> list[bytes | None]:
        """The value of every key (None where missing), in order; the
        lookups run in lockstep so that their cache misses overlap."""
    def write_batch(
        self, *, log: bool = True, sync: bool = False
    ) -> WriteBatch:
        """A batch of writes applied atomically and with one persistence
        barrier: commits when its with block ends, discards on an
        exception. log and sync apply to every commit, as for put()."""
    def update(
        self,
        other: Mapping[Key, Key] | Iterable[tuple[Key, Key]],
        *,
        log: bool = True,
        sync: bool = False,
        expires_at: float | None = None,
        ttl: float | None = None,
    ) -> None:
        """Put every pair, as one atomic batch. log, sync, expires_at
        and ttl: as for put(), for every pair."""
    def increment(
        self, key: Key, delta: int = 1, *, sync: bool = False
    ) -> int:
        """Add delta to the 8-byte little-endian signed integer at key (a
        missing key counts as 0), atomically; return the new value.
        InvalidArgumentError if the value is not 8 bytes long or the sum
        overflows. The key keeps its expiry. sync: as for put() (the
        write is logged)."""
    def setdefault(
        self, key: Key, default: Key, *, sync: bool = False
    ) -> bytes:
        """The value of key; if it has none, store default first
        (atomically) and return it. sync: as for put() (the write is
        logged); it syncs even when the key had a value."""
    def expire(
        self,
        key: Key,
        *,
        expires_at: float | None = None,
        ttl: float | None = None,
        sync: bool = False,
    ) -> bool:
        """Set the expiry of key, keeping its value: expires_at or ttl as
        for put(), exactly one of them (else TypeError). Return True, or
        False if the key is absent or already expired (nothing written).
        Atomic; logged, sync as for put()."""
    def persist(self, key: Key, *, sync: bool = False) -> bool:
        """Remove the expiry of key, keeping its value. Return True, or
        False if the key is absent or already expired. As expire()."""
    def ttl(self, key: Key) -> float | None:
        """Seconds until key expires (0.0 if that is within the current
        millisecond), None if it never expires; KeyError if it does not
        exist."""
    def expires_at(self, key: Key) -> float | None:
        """When key expires, in Unix seconds (to the millisecond), None
        if it never expires; KeyError if it does not exist."""
    def backup(self, path: str | os.PathLike[str]) -> None:
        """Write a consistent copy of the open pool to path (a new file:
        InvalidArgumentError if it exists); writers pause meanwhile,
        readers do not."""
    def checkpoint(self, threads: int = 1) -> None:
        """Make every write issued so far durable, logged or not.
        threads=0 uses one thread per core."""
    def sync(self) -> None:
        """File back end: msync, so that writes survive a power failure."""
    def rebalance(self) -> int:
        """Range pools: split every heavy partition now (online; the
        background thread does it as partitions become heavy unless
        range_rebalance=False); returns the key-range moves made.
        NotSupportedError on hash pools."""
    def verify(self) -> str:
        """Check every structure of the pool; return the report, or raise
        CorruptionError describing the problems."""
    def stats(self) -> dict[str, int | float | bool | str | list[int]]:
        """Every field of plush::Stats, by name."""
    def scan(
        self,
        start: Key | None = None,
        end: Key | None = None,
        limit: int | None = None,
    ) -> Scan[tuple[bytes, bytes]]:
        """(key, value) pairs: in key order from the first key >= start up
        to, not including, the first key >= end on a range pool (only the
        partitions of that range are read); every record on a hash pool
        (start and end must be None: NotSupportedError). limit caps the
        number of records."""
    def items(self) -> Scan[tuple[bytes, bytes]]: ...
    def keys(self) -> Scan[bytes]: ...
    def values(self) -> Scan[bytes]: ...
    def __iter__(self) -> Scan[bytes]: ...
    def close(self) -> None:
        """Release the pool, its lock and its memory. Idempotent."""
    def __enter__(self) -> DB: ...
    def __exit__(self, *exc_info: object) -> Literal[False]: ...

class WriteBatch:
    """From DB.write_batch(): puts and deletes applied by commit() (or at
    the end of a with block) atomically: after a crash, all or none."""

    def put(
        self,
        key: Key,
        value: Key,
        *,
        expires_at: float | None = None,
        ttl: float | None = None,
    ) -> None:
        """expires_at and ttl: as for DB.put(); a ttl counts from this
        call, not from commit()."""
    def delete(self, key: Key) -> None: ...
    def __len__(self) -> int: ...
    def commit(self) -> None:
        """Apply and empty the batch; on an error nothing was applied and
        the batch keeps its operations."""
    def __enter__(self) -> WriteBatch: ...
    def __exit__(self, *exc_info: object) -> Literal[False]: ...

def open(
    path: str | os.PathLike[str],
    *,
    small: bool = False,
    create_if_missing: bool = True,
    error_if_exists: bool = False,
    backend: Literal["auto", "file", "pmem"] = "auto",
    required_granularity: Literal["byte", "cache-line", "page"] = "page",
    recovery_threads: int = 0,
    background_threads: int = 1,
    range_rebalance: bool = True,
    power_fail_safe: bool = False,
    initial_pool_size: int = ...,
    max_pool_size: int = ...,
    partitioning: Literal["hash", "range"] = "hash",
    range_key_sample: Iterable[bytes] = (),
    dram_directory_bits: int = ...,
    fanout_bits: int = ...,
    first_level_fanout_bits: int = ...,
    preallocated_levels: int = ...,
    dram_filter_levels: int = ...,
    log_count: int = ...,
    log_chunk_size: int = ...,
    log_chunks_per_log: int = ...,
    payload_log_count: int = ...,
    payload_chunk_size: int = ...,
) -> DB:
    """Open (by default create) the pool at path.

    The keyword arguments are the fields of plush::Options; small=True
    starts from Options::SmallProfile(). Creation parameters (partitioning
    and the sizes of levels and logs) are fixed when the pool is created;
    naming other values for an existing pool raises InvalidArgumentError
    (small=True does not count: an existing pool keeps its parameters).
    range_key_sample: for a new range pool, keys like the ones it will
    hold; the pool starts with its key space split at their quantiles
    (keys sharing their first bytes then spread over the whole table from
    the first record on). Like small=True, it is not checked against an
    existing pool, which keeps its own. range_rebalance: range pools
    re-balance as partitions become heavy (keys that share a prefix or
    keep growing); False leaves that to rebalance(). power_fail_safe: a
    pool file on a disk orders its background work with msyncs, so that a
    power failure loses no acknowledged write and nothing a sync covered;
    the pool remembers it, and every later opening is power-fail safe too.
    Raises BusyError if the pool is open elsewhere.
    """
