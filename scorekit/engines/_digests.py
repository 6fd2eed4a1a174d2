"""The list hash (SPEC §10) of more row digests than memory holds, sorted on disk by their first bytes.

A results or evidence hash sorts one 32-byte digest per row. DuckDB's ``ORDER BY`` sorted a
billion of them as hex text, spilling about 75 bytes a row (80 GB); here they are sorted as bytes:

* digests arrive in any order and are kept in memory up to :data:`BUFFER_BYTES`; when more come,
  they are scattered by their first byte into 256 bucket files (32 bytes a row on disk, nothing
  else);
* bucket by bucket, in byte order, each is read and sorted in memory (a bucket larger than
  :data:`SORT_BYTES` is scattered again by its next byte) and fed to the one SHA-256.

Byte order of the digests is the order of their lowercase hex text, so the hash is
:func:`scorekit._hashing.list_hash` of the sorted hex digests.
"""

from __future__ import annotations

import binascii
import hashlib
import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DigestSorter", "ListHash", "from_hex", "sort_digests", "sorted_list_hash"]

#: Digest bytes held in memory before they are scattered to bucket files.
BUFFER_BYTES = 64 << 20
#: A bucket up to this size is sorted in memory; a larger one is scattered again by its next byte.
SORT_BYTES = 256 << 20
#: Digests sharing this many first bytes are sorted in memory whatever their number (only
#: repeated digests get there).
MAX_DEPTH = 4
WIDTH = 32


def from_hex(hex_digits: Any) -> np.ndarray:
    """Hex digests, back to back in one buffer (64 characters each), as (n, 32) digest bytes;
    ``ValueError`` on a character that is not a hex digit.

    >>> from_hex(b"00ff" * 16)[0, :2].tolist()
    [0, 255]
    """
    return np.frombuffer(binascii.unhexlify(hex_digits), dtype=np.uint8).reshape(-1, WIDTH)


def sort_digests(raw: np.ndarray) -> np.ndarray:
    """(n, 32) digests in byte order: by their first 8 bytes, all 32 only when two first-8 meet."""
    if len(raw) < 2:
        return raw
    keys = np.ascontiguousarray(raw[:, :8]).view(">u8").ravel().astype(np.uint64)
    order = np.argsort(keys)
    ordered = keys[order]
    if (ordered[1:] == ordered[:-1]).any():
        words = np.ascontiguousarray(raw).view(">u8").astype(np.uint64)  # (n, 4)
        order = np.lexsort(words.T[::-1])  # the last key is the primary one
    return np.take(raw, order, axis=0)  # whole rows at once: ten times raw[order]


class ListHash:
    """SHA-256 of the canonical list of hex digests (``_hashing.list_hash``), fed digests in order."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256(b"[")
        self._any = False

    #: Digests written out as text at once (67 bytes each): a bucket of 256 MB is 8M digests.
    ROWS = 1 << 20

    def update(self, raw: np.ndarray) -> None:
        """Add (n, 32) digest bytes, already in order (their lowercase hex goes into the list): each
        written as ``,"<hex>"`` into one buffer, the comma left out before the first of the list."""
        for start in range(0, len(raw), self.ROWS):
            chunk = np.ascontiguousarray(raw[start:start + self.ROWS])
            text = np.empty((len(chunk), 2 * WIDTH + 3), dtype=np.uint8)
            text[:, :2], text[:, -1] = np.frombuffer(b',"', dtype=np.uint8), ord('"')
            text[:, 2:-1] = np.frombuffer(binascii.hexlify(chunk.data), dtype=np.uint8).reshape(-1, 2 * WIDTH)
            flat = text.data.cast("B")
            self._sha.update(flat if self._any else flat[1:])
            self._any = True

    def hexdigest(self) -> str:
        self._sha.update(b"]")
        return self._sha.hexdigest()


class DigestSorter:
    """Digests added in any order; :meth:`sorted` gives them back in byte order, in chunks.

    ``directory`` (created when first needed, removed by :meth:`sorted`) takes the bucket files.

    >>> import tempfile
    >>> sorter = DigestSorter(Path(tempfile.mkdtemp()) / "d", buffer_bytes=64)
    >>> sorter.add(np.array([[b] * 32 for b in (9, 3, 200, 3, 0)], dtype=np.uint8))
    >>> [int(chunk[i, 0]) for chunk in sorter.sorted() for i in range(len(chunk))]
    [0, 3, 3, 9, 200]
    """

    def __init__(self, directory: Path, *, depth: int = 0, buffer_bytes: int | None = None,
                 sort_bytes: int | None = None) -> None:
        self.directory = directory
        self.depth = depth
        self.buffer_bytes = BUFFER_BYTES if buffer_bytes is None else buffer_bytes
        self.sort_bytes = SORT_BYTES if sort_bytes is None else sort_bytes
        self._held: list[np.ndarray] = []
        self._held_bytes = 0
        self._scattered = False

    def add(self, raw: np.ndarray) -> None:
        """Add (n, 32) digest bytes."""
        if not len(raw):
            return
        self._held.append(raw)
        self._held_bytes += raw.nbytes
        if self._held_bytes > self.buffer_bytes:
            self._scatter()

    def _scatter(self) -> None:
        raw = np.concatenate(self._held) if len(self._held) > 1 else self._held[0]
        self._held, self._held_bytes = [], 0
        first = raw[:, self.depth]
        order = np.argsort(first, kind="stable")
        ends = np.cumsum(np.bincount(first, minlength=256))
        ordered = np.take(raw, order, axis=0)
        self.directory.mkdir(parents=True, exist_ok=True)
        start = 0
        for byte, end in enumerate(ends.tolist()):
            if end > start:
                with open(self.directory / f"{byte:02x}", "ab") as fh:
                    fh.write(ordered[start:end].tobytes())
            start = end
        self._scattered = True

    def sorted(self) -> Iterator[np.ndarray]:
        """The digests in byte order, a bucket at a time; the bucket files are removed as they are read."""
        try:
            if not self._scattered and self._held_bytes <= self.sort_bytes:
                held = np.concatenate(self._held) if self._held else np.zeros((0, WIDTH), dtype=np.uint8)
                self._held = []
                yield sort_digests(held)
                return
            if self._held:
                self._scatter()
            for byte in range(256):
                path = self.directory / f"{byte:02x}"
                if not path.exists():
                    continue
                size = os.path.getsize(path)
                if size > self.sort_bytes and self.depth + 1 < MAX_DEPTH:
                    yield from self._split(path)
                else:
                    raw = np.fromfile(path, dtype=np.uint8).reshape(-1, WIDTH)
                    path.unlink()
                    yield sort_digests(raw)
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)

    def list_hash(self) -> str:
        """The list hash (``_hashing.list_hash``) of the digests added: :meth:`sorted` into one :class:`ListHash`."""
        digest = ListHash()
        for chunk in self.sorted():
            digest.update(chunk)
        return digest.hexdigest()

    def _split(self, path: Path) -> Iterator[np.ndarray]:
        """A bucket too large to sort at once, scattered by its next byte and sorted in turn."""
        inner = DigestSorter(self.directory / f"{path.name}.d", depth=self.depth + 1,
                             buffer_bytes=self.buffer_bytes, sort_bytes=self.sort_bytes)
        rows = max(1, self.buffer_bytes // WIDTH)
        data = np.memmap(path, dtype=np.uint8, mode="r").reshape(-1, WIDTH)
        for start in range(0, len(data), rows):
            inner.add(np.array(data[start:start + rows]))
        del data
        path.unlink()
        yield from inner.sorted()


def sorted_list_hash(directory: Path, digests: Iterable[np.ndarray]) -> str:
    """The list hash (``_hashing.list_hash``) of (n, 32) digest arrays given in any order: sorted as
    bytes by a :class:`DigestSorter` in ``directory`` (on disk past memory), fed to one :class:`ListHash`."""
    sorter = DigestSorter(directory)
    for raw in digests:
        sorter.add(raw)
    return sorter.list_hash()
