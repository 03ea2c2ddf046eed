"""Plush: an embedded, persistent, write-optimized key-value store.

    import plush

    with plush.open("my.pool") as db:
        db[b"key"] = b"value"
        print(db[b"key"])

Keys and values are bytes. ``plush.open(path, **options)`` takes the fields
of the C++ ``plush::Options`` as keyword arguments (and ``small=True`` for
the small profile); see ``_plush.pyi`` for the full API.
"""

from importlib.metadata import PackageNotFoundError, version

from plush._errors import (
    BusyError,
    CorruptionError,
    Error,
    InvalidArgumentError,
    IOError,
    NoSpaceError,
    NotSupportedError,
)
from plush._plush import (
    DB,
    FORMAT_VERSION,
    MAX_BATCH_RECORDS,
    MAX_KEY_SIZE,
    MAX_VALUE_SIZE,
    WriteBatch,
    open,
)

try:
    __version__ = version("plush")
except PackageNotFoundError:  # imported from a build tree, not installed
    __version__ = "unknown"

__all__ = [
    "DB",
    "FORMAT_VERSION",
    "MAX_BATCH_RECORDS",
    "MAX_KEY_SIZE",
    "MAX_VALUE_SIZE",
    "BusyError",
    "CorruptionError",
    "Error",
    "IOError",
    "InvalidArgumentError",
    "NoSpaceError",
    "NotSupportedError",
    "WriteBatch",
    "open",
]
