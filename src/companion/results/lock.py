"""The results folder's lock: one writer at a time across processes (``flock``).

Its own module: both the JSON-lines writer (``jsonl``) and the store (``store``) take it,
and ``store`` reads through ``jsonl``.
"""

from __future__ import annotations

import os


class locked:
    """An exclusive ``flock`` on the results folder (POSIX; a no-op elsewhere)."""

    def __init__(self, folder: str):
        self.folder, self.fd = folder, None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:
            return self
        try:
            self.fd = os.open(self.folder, os.O_RDONLY)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except OSError:  # a filesystem without locks: appends of one write() stay whole
            if self.fd is not None:
                os.close(self.fd)
            self.fd = None
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
        return False
