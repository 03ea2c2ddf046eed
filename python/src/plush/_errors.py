"""The exceptions Plush raises, one per failing status code.

A missing key is not among them: it surfaces as ``KeyError`` (``db[k]``,
``del db[k]``) or as a default value (``db.get(k)``).
"""


class Error(Exception):
    """Base class of every Plush error."""


class CorruptionError(Error):
    """The pool's bytes are inconsistent."""


class BusyError(Error):
    """The pool is already open, in this process or another one."""


class NoSpaceError(Error):
    """The pool, or its file system, is full; nothing was changed."""


class NotSupportedError(Error):
    """A valid request this pool or build cannot serve.

    For example an ordered scan of a hash-partitioned pool.
    """


class InvalidArgumentError(Error, ValueError):
    """Bad input: key or value sizes, options, or a closed DB."""


class IOError(Error, OSError):  # noqa: A001 - mirrors plush::Status::IOError
    """The operating system refused an operation."""
