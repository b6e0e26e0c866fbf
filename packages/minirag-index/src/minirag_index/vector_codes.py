"""The search snapshot's vectors as one byte per dimension, and the scan over them.

A float32 vector of 384 dimensions takes 1.5 KB; at 100k chunks the snapshot's vectors alone
held 146 MiB of a quiet server's memory. Here each row is kept as uint8 codes with a scale of
its own (``value ≈ scale × (code − 128)``), a quarter of the size, and the scan that ranks every
row against a query is one integer matrix product in onnxruntime (``MatMulInteger``, already
installed for the embedding model): about 2 ms for 100k rows on one core, against 5 ms for the
float32 product in numpy and 13 ms for numpy converting the codes back to float32 block by block
(docs/benchmarks.md).

The scan's distances are close, not exact: a row's rounding moves its dot product by about
``scale / 2`` per dimension. The snapshot therefore ranks by them only to pick a pool of
candidates a few times larger than asked, and ranks that pool again with the exact float32
vectors it reads back from disk (:mod:`minirag_index.snapshot`).

The query is split into two int8 columns, a coarse one and its remainder, so that rounding the
query adds next to nothing to the error the rows' own rounding makes.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

import numpy as np

ZERO = 128  # the code of 0.0: codes are stored unsigned, value / scale + 128
_LEVELS = 127.0


def quantize_rows(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """uint8 codes of each row of ``vectors`` (n × dim float32) and each row's scale."""
    peak = np.abs(vectors).max(axis=1) if vectors.size else np.zeros(len(vectors))
    scales = np.where(peak > 0, peak / _LEVELS, 1.0).astype(np.float32)
    scaled = np.rint(vectors / scales[:, None])
    np.clip(scaled, -_LEVELS, _LEVELS, out=scaled)
    scaled += ZERO
    return scaled.astype(np.uint8), scales


def query_columns(query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``query`` (dim float32) as two int8 columns (dim × 2) and their scales:
    ``query ≈ scales[0] × columns[:, 0] + scales[1] × columns[:, 1]``."""
    columns = np.empty((len(query), 2), dtype=np.int8)
    scales = np.empty(2, dtype=np.float64)
    rest = query.astype(np.float64)
    for k in range(2):
        peak = float(np.abs(rest).max()) if rest.size else 0.0
        scales[k] = peak / _LEVELS if peak > 0 else 1.0
        rounded = np.clip(np.rint(rest / scales[k]), -_LEVELS, _LEVELS)
        columns[:, k] = rounded
        rest = rest - rounded * scales[k]
    return columns, scales


def approximate_dots(codes: np.ndarray, scales: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Each row's dot product with ``query`` (float32, one per row), from its codes."""
    if len(codes) == 0:
        return np.zeros(0, dtype=np.float32)
    columns, column_scales = query_columns(query)
    products = integer_products(codes, columns).astype(np.float32)
    dots = products @ column_scales.astype(np.float32)
    # (code − 128) · column = code · column − 128 × Σ column
    dots -= np.float32(ZERO * float(columns.sum(axis=0, dtype=np.int64) @ column_scales))
    dots *= scales
    return dots


def integer_products(codes: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``codes`` (n × dim uint8) times ``columns`` (dim × k int8) as int32 (n × k)."""
    (output,) = _scan_session().run(
        None, {"A": np.ascontiguousarray(codes), "B": np.ascontiguousarray(columns)}
    )
    return output


class _Session:
    """One onnxruntime session for ``Y = MatMulInteger(A, B)``, run from any thread."""

    def __init__(self) -> None:
        import onnxruntime as ort  # type: ignore[import-untyped]

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # the keyword search runs beside it on the other core
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            matmul_integer_model(), options, providers=["CPUExecutionProvider"]
        )

    def run(self, outputs: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        return self._session.run(outputs, feeds)


_session_lock = threading.Lock()


@cache
def _scan_session_unlocked() -> _Session:
    return _Session()


def _scan_session() -> _Session:
    with _session_lock:  # built once, whichever thread searches first
        return _scan_session_unlocked()


# -- the model, written out by hand ---------------------------------------------------------
# The graph is one node, and building it with the ``onnx`` package would make that package a
# dependency of every install; its protobuf encoding is a few fields (onnx.proto: ModelProto,
# GraphProto, NodeProto, ValueInfoProto, TypeProto). A test checks it with ``onnx`` where the
# package is installed.

_UINT8, _INT8, _INT32 = 2, 3, 6  # TensorProto.DataType
_IR_VERSION, _OPSET = 8, 13


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, value: int | str | bytes) -> bytes:
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    data = value.encode("utf-8") if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _tensor_info(name: str, element_type: int, dims: tuple[str, str]) -> bytes:
    shape = b"".join(_field(1, _field(2, dim)) for dim in dims)  # symbolic dimensions
    tensor_type = _field(1, element_type) + _field(2, shape)
    return _field(1, name) + _field(2, _field(1, tensor_type))


@cache
def matmul_integer_model() -> bytes:
    """The serialised ONNX model ``Y (n × k int32) = MatMulInteger(A (n × d uint8),
    B (d × k int8))``."""
    node = _field(1, "A") + _field(1, "B") + _field(2, "Y") + _field(4, "MatMulInteger")
    graph = (
        _field(1, node)
        + _field(2, "minirag_code_scan")
        + _field(11, _tensor_info("A", _UINT8, ("n", "d")))
        + _field(11, _tensor_info("B", _INT8, ("d", "k")))
        + _field(12, _tensor_info("Y", _INT32, ("n", "k")))
    )
    opset = _field(1, "") + _field(2, _OPSET)
    return _field(1, _IR_VERSION) + _field(8, opset) + _field(7, graph)
