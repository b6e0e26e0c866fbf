"""Look-alike documents: MinHash signatures of five-word runs and an LSH index over them.

Each document gets a signature at ingest: a MinHash (128 permutations, fixed seed, datasketch's
``affine32`` scheme) over its *five-word runs* - every run of five consecutive words of the
folded text (:func:`minirag_index.text.folding.fold`; words are runs of letters and digits). A text
shorter than five words is one run of all its words; a text with no words gets the empty
signature, which never looks like anything.

``overlap`` between two documents is the estimated Jaccard similarity of their run sets (the
fraction of equal signature slots): runs in common over runs in either. A short text wholly
contained in one three times its length scores about 0.33.

The signature is datasketch's (2.0) ``MinHash(num_perm=128, seed=20240615, scheme="affine32")``
computed here in numpy, value for value (``test_lookalike.py`` compares the two on many texts):
datasketch's package imports its LSH sketches, and they import scipy, 53 MiB more in the
process that syncs (measured: a 240-file sync through MCP peaked at 533 MB with it) for a hash
that is twenty lines: SHA-1's first four bytes per run, MurmurHash3's 32-bit finalizer, then per
permutation ``a * h + b`` modulo 2**32, with ``a`` odd and both drawn from numpy's
``RandomState(seed)`` as datasketch draws them.

:class:`LookAlikeIndex` finds, for one document, every other document overlapping it by
:data:`LOOKALIKE_THRESHOLD` (0.5) or more, without comparing all pairs: locality-sensitive
hashing with 42 bands of 3 rows (done in numpy over the stored signatures) proposes candidates
- a pair at true overlap 0.5 becomes a candidate with probability 0.996, at 0.3 about 0.68, at
0.1 about 0.04 - and each candidate's estimated overlap is then checked against the threshold.
(datasketch's MinHashLSH picks 25 bands of 5 rows for a 0.45 threshold, which catches a 0.5
pair only about half the time.)
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from functools import cache

import numpy as np

from minirag_index.text.folding import fold

__all__ = [
    "EMPTY_SIGNATURE",
    "LOOKALIKE_THRESHOLD",
    "NUM_PERM",
    "SHINGLE_WORDS",
    "SIGNATURE_BYTES",
    "LookAlikeIndex",
    "overlap",
    "shingles",
    "signature",
    "signature_bytes",
    "signature_from_bytes",
]

NUM_PERM = 128
SEED = 20240615
SHINGLE_WORDS = 5
HASH_BATCH = 20_000  # runs hashed at a time, bounding the (runs x 128) working matrix
LOOKALIKE_THRESHOLD = 0.5
LSH_BANDS, LSH_ROWS = 42, 3

_VERSION = 1
#: Length of a serialised signature: one version byte, then 128 little-endian uint32 values.
SIGNATURE_BYTES = 1 + 4 * NUM_PERM
_EMPTY_VALUE = np.uint32(0xFFFFFFFF)

_WORD_RE = re.compile(r"[^\W_]+")


@cache
def _permutations() -> tuple[np.ndarray, np.ndarray]:
    """The (a, b) of each permutation, drawn as datasketch 2.0 draws its affine32 ones."""
    generator = np.random.RandomState(SEED)
    a = generator.randint(0, 1 << 31, NUM_PERM, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = generator.randint(0, 1 << 32, NUM_PERM, dtype=np.uint32)
    return a, b


def _mixed_hashes(runs: list[bytes]) -> np.ndarray:
    """Each run's 32-bit SHA-1 hash, put through MurmurHash3's finalizer (a bijection)."""
    hashes = np.fromiter(
        (int.from_bytes(hashlib.sha1(run).digest()[:4], "little") for run in runs),
        dtype=np.uint32,
        count=len(runs),
    )
    hashes ^= hashes >> np.uint32(16)
    hashes *= np.uint32(0x85EBCA6B)
    hashes ^= hashes >> np.uint32(13)
    hashes *= np.uint32(0xC2B2AE35)
    hashes ^= hashes >> np.uint32(16)
    return hashes


def _batch_minimum(runs: list[bytes]) -> np.ndarray:
    """The 128 minima over ``runs`` of ``a * h + b`` (uint32 arithmetic wraps: modulo 2**32)."""
    a, b = _permutations()
    return (_mixed_hashes(runs)[:, None] * a + b).min(axis=0)


def shingles(text: str) -> list[bytes]:
    """The distinct five-word runs of ``text`` (folded), UTF-8 encoded."""
    words = _WORD_RE.findall(fold(text))
    if not words:
        return []
    if len(words) < SHINGLE_WORDS:
        return [" ".join(words).encode("utf-8")]
    runs = {" ".join(words[i : i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1)}
    return [r.encode("utf-8") for r in runs]


def _runs(text: str) -> Iterator[bytes]:
    """Every five-word run of ``text`` (folded), repeats included, without holding them all:
    a minimum is the same whether a run was seen once or many times."""
    window: deque[str] = deque(maxlen=SHINGLE_WORDS)
    for match in _WORD_RE.finditer(fold(text)):
        window.append(match.group())
        if len(window) == SHINGLE_WORDS:
            yield " ".join(window).encode("utf-8")
    if 0 < len(window) < SHINGLE_WORDS:
        yield " ".join(window).encode("utf-8")


def signature(text: str) -> np.ndarray:
    """MinHash signature of ``text``: 128 uint32 values (all 0xFFFFFFFF when it has no words).

    Runs are hashed :data:`HASH_BATCH` at a time: each batch is a 128-wide matrix, which for
    all runs of a 25 MB text at once was hundreds of megabytes."""
    values = np.full(NUM_PERM, _EMPTY_VALUE, dtype=np.uint32)
    batch: list[bytes] = []
    for run in _runs(text):
        batch.append(run)
        if len(batch) >= HASH_BATCH:
            np.minimum(values, _batch_minimum(batch), out=values)
            batch.clear()
    if batch:
        np.minimum(values, _batch_minimum(batch), out=values)
    return values


def _to_bytes(values: np.ndarray) -> bytes:
    return bytes([_VERSION]) + np.asarray(values, dtype="<u4").tobytes()


#: The stored signature of a text with no words.
EMPTY_SIGNATURE = _to_bytes(np.full(NUM_PERM, _EMPTY_VALUE, dtype=np.uint32))


def signature_bytes(text: str) -> bytes:
    """Serialised signature of ``text`` for storage (:data:`SIGNATURE_BYTES` long)."""
    return _to_bytes(signature(text))


def signature_from_bytes(data: bytes) -> np.ndarray:
    """Signature values from :func:`signature_bytes` output; ``ValueError`` if not one."""
    if len(data) != SIGNATURE_BYTES or data[0] != _VERSION:
        raise ValueError("not a look-alike signature of this version")
    return np.frombuffer(data, dtype="<u4", offset=1).astype(np.uint32)


def _values(sig: bytes | np.ndarray) -> np.ndarray:
    if isinstance(sig, bytes | bytearray | memoryview):
        return signature_from_bytes(bytes(sig))
    values = np.asarray(sig, dtype=np.uint32)
    if values.shape != (NUM_PERM,):
        raise ValueError(f"a signature has {NUM_PERM} values, not {values.shape}")
    return values


def _is_empty(values: np.ndarray) -> bool:
    return bool((values == _EMPTY_VALUE).all())


def overlap(a: bytes | np.ndarray, b: bytes | np.ndarray) -> float:
    """Estimated Jaccard similarity of two signatures' five-word runs (0.0 if either is empty)."""
    va, vb = _values(a), _values(b)
    if _is_empty(va) or _is_empty(vb):
        return 0.0
    return float(np.count_nonzero(va == vb)) / NUM_PERM


# Multipliers that fold a band's three 32-bit values into one 64-bit bucket key.
_BAND_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9], dtype=np.uint64)


def _band_keys(matrix: np.ndarray) -> np.ndarray:
    """Bucket key of every band of every signature: shape (rows, LSH_BANDS), uint64."""
    bands = matrix[:, : LSH_BANDS * LSH_ROWS].reshape(len(matrix), LSH_BANDS, LSH_ROWS)
    mixed = bands.astype(np.uint64) * _BAND_MIX
    keys = mixed[:, :, 0] ^ (mixed[:, :, 1] >> np.uint64(7)) ^ (mixed[:, :, 2] << np.uint64(3))
    # The band number goes into the key, so all bands share one sorted array. Equal bands
    # always collide; a rare unequal collision only adds a candidate the overlap check rejects.
    return keys ^ (np.arange(LSH_BANDS, dtype=np.uint64) * np.uint64(0xD6E8FEB86659FD93))


class LookAlikeIndex:
    """Documents that overlap one another by :data:`LOOKALIKE_THRESHOLD` or more.

    Built once from ``{source: signature}`` (bytes, a values array or a MinHash); signatures
    that are None or empty are left out. The LSH banding is done in numpy (42 bands of 3
    rows, bucket keys sorted per band), so neither building nor querying imports datasketch.
    A look-up finds the documents sharing a band with it and checks their overlap.
    """

    def __init__(
        self,
        signatures: Mapping[str, bytes | np.ndarray | None]
        | Iterable[tuple[str, bytes | np.ndarray | None]],
        *,
        threshold: float = LOOKALIKE_THRESHOLD,
    ) -> None:
        items = signatures.items() if isinstance(signatures, Mapping) else signatures
        self.threshold = threshold
        self._sources: list[str] = []
        rows: list[np.ndarray] = []
        for source, sig in items:
            if sig is None:
                continue
            values = _values(sig)
            if _is_empty(values):
                continue
            self._sources.append(source)
            rows.append(values)
        self._row = {s: i for i, s in enumerate(self._sources)}
        self._matrix = (
            np.vstack(rows) if rows else np.zeros((0, NUM_PERM), dtype=np.uint32)
        ).astype(np.uint32)
        # Every (row, band) bucket key in one sorted array; a look-up is one searchsorted.
        self._keys = _band_keys(self._matrix)
        flat = self._keys.ravel()
        self._order = np.argsort(flat, kind="stable")
        self._sorted = flat[self._order]
        self._cache: dict[str, list[tuple[str, float]]] = {}

    def __len__(self) -> int:
        return len(self._sources)

    def __contains__(self, source: object) -> bool:
        return source in self._row

    def look_alikes(self, source: str, limit: int | None = 3) -> list[tuple[str, float]]:
        """Other documents overlapping ``source`` by the threshold or more, most overlap first.

        Each entry is ``(other_source, overlap)``; ties break by source. An unknown source or
        one without a signature has none.
        """
        found = self._cache.get(source)
        if found is None:
            found = self._compute(source)
            self._cache[source] = found
        return found if limit is None else found[:limit]

    def _candidates(self, row: int) -> np.ndarray:
        keys = self._keys[row]
        lo = np.searchsorted(self._sorted, keys, side="left")
        hi = np.searchsorted(self._sorted, keys, side="right")
        shared = hi - lo > 1  # buckets holding more than this row
        if not shared.any():
            return np.zeros(0, dtype=np.int64)
        slots = np.concatenate(
            [self._order[a:b] for a, b in zip(lo[shared], hi[shared], strict=True)]
        )
        cand = np.unique(slots // LSH_BANDS)
        return cand[cand != row]

    def _compute(self, source: str) -> list[tuple[str, float]]:
        row = self._row.get(source)
        if row is None:
            return []
        cand = self._candidates(row)
        if not len(cand):
            return []
        values = self._matrix[row]
        scores = np.count_nonzero(self._matrix[cand] == values, axis=1) / NUM_PERM
        keep = scores >= self.threshold
        out = [
            (self._sources[c], float(s))
            for c, s in zip(cand[keep].tolist(), scores[keep].tolist(), strict=True)
        ]
        out.sort(key=lambda e: (-e[1], e[0]))
        return out

    def sources_with_look_alikes(self) -> list[str]:
        """Every indexed source that has at least one look-alike."""
        return [s for s in self._sources if self.look_alikes(s, limit=1)]
