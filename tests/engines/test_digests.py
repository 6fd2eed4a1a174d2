"""Row digests sorted on disk by their first bytes, and their list hash (engines/_digests.py)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit._hashing import list_hash
from scorekit.engines._digests import DigestSorter, ListHash, from_hex, sort_digests, sorted_list_hash

# Few byte values, so digests share long prefixes (ties in the first 8 bytes, equal first bytes at
# every depth) and repeat.
_BYTE = st.sampled_from([0, 1, 127, 128, 254, 255])
_DIGEST = st.one_of(
    st.binary(min_size=32, max_size=32),
    st.lists(_BYTE, min_size=32, max_size=32).map(bytes),
    st.tuples(st.binary(min_size=2, max_size=2), st.binary(min_size=30, max_size=30)).map(lambda t: t[0] * 9
                                                                                          + t[1][:14]),
)


def _array(digests: list[bytes]) -> np.ndarray:
    return np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(-1, 32)


@settings(max_examples=150, deadline=None)
@given(digests=st.lists(_DIGEST, max_size=120), batch=st.integers(1, 9), buffer_rows=st.integers(1, 40),
       sort_rows=st.integers(1, 60))
def test_the_sorter_gives_back_every_digest_in_byte_order(tmp_path_factory, digests, batch, buffer_rows, sort_rows):
    """Whatever the batches, the memory held and the bucket size (buckets split again by later bytes),
    the digests come back sorted, with their repeats, and the bucket files are gone."""
    directory = tmp_path_factory.mktemp("sorter") / "d"
    sorter = DigestSorter(directory, buffer_bytes=32 * buffer_rows, sort_bytes=32 * sort_rows)
    for start in range(0, len(digests), batch):
        sorter.add(_array(digests[start:start + batch]))
    got = [bytes(row) for chunk in sorter.sorted() for row in chunk]
    assert got == sorted(digests)
    assert not directory.exists()


def test_a_bucket_too_large_to_sort_is_split_by_its_later_bytes(tmp_path):
    """One first byte for all: the bucket is split by the second byte, then the third (whose order
    disagrees with the second's), and sorted."""
    rng = np.random.default_rng(5)
    digests = [bytes([7, second, 255 - second, third]) + rng.bytes(28) for second in range(8) for third in range(8)]
    directory = tmp_path / "d"
    sorter = DigestSorter(directory, buffer_bytes=32 * 5, sort_bytes=32 * 3)
    for i in rng.permutation(len(digests)):
        sorter.add(_array([digests[i]]))
    seen = []
    original = DigestSorter._split

    def split(self, path):
        seen.append(self.depth)
        return original(self, path)

    DigestSorter._split = split
    try:
        got = [bytes(row) for chunk in sorter.sorted() for row in chunk]
    finally:
        DigestSorter._split = original
    assert got == sorted(digests) and seen[:3] == [0, 1, 2]
    assert not directory.exists()


@given(digests=st.lists(_DIGEST, max_size=60))
def test_sorting_by_the_first_eight_bytes_resolves_ties_on_all_32(digests):
    assert [bytes(r) for r in sort_digests(_array(digests) if digests else np.zeros((0, 32), np.uint8))] \
        == sorted(digests)


@given(digests=st.lists(st.binary(min_size=32, max_size=32), max_size=30), cut=st.integers(0, 30),
       rows=st.integers(1, 7))
def test_the_list_hash_of_sorted_bytes_is_list_hash_of_the_sorted_hex(digests, cut, rows):
    """Byte order is lowercase hex order; fed in two pieces, written out as text a few digests at a
    time, the hash is ``list_hash``'s."""
    ordered = sorted(digests)
    assert [d.hex() for d in ordered] == sorted(d.hex() for d in digests)
    raw = from_hex("".join(d.hex() for d in ordered).encode())
    assert [bytes(r) for r in raw] == ordered
    digest = ListHash()
    digest.ROWS = rows
    digest.update(raw[:cut])
    digest.update(raw[cut:])
    assert digest.hexdigest() == list_hash([d.hex() for d in digests], sort=True)


def test_a_digest_that_is_not_hex_is_refused():
    with pytest.raises(ValueError, match="hexadecimal|Non-hex"):
        from_hex(hashlib.sha256(b"x").hexdigest()[:-1].encode() + b"g")


@settings(max_examples=30, deadline=None)
@given(st.lists(st.binary(min_size=32, max_size=32), max_size=40), st.lists(st.integers(0, 40), max_size=4))
def test_sorted_list_hash_of_digests_in_any_order_and_batches_is_list_hash(tmp_path_factory, digests, cuts):
    raw = np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(-1, 32)
    bounds = sorted({0, len(raw), *(min(c, len(raw)) for c in cuts)})
    batches = [raw[a:b] for a, b in zip(bounds, bounds[1:], strict=False)][::-1]
    got = sorted_list_hash(tmp_path_factory.mktemp("d") / "digests", batches)
    assert got == list_hash([d.hex() for d in digests], sort=True)
