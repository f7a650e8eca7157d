"""The small network the learned parts share (pure): an optional hidden ReLU layer before an output layer.

:mod:`.clause_reader` (softmax over five labels) and :mod:`.thing_finder` (one sigmoid per token) store, check,
read and run their weights the same way; only their output activations and extra fields differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["check_hidden", "hidden", "input_dimension", "read_hidden", "weight_arrays"]


def check_hidden(weights: np.ndarray, w1: np.ndarray | None, b1: np.ndarray | None) -> None:
    """A hidden layer (``w1``, ``b1``) comes whole and fits the output layer ``weights``, or is absent; else
    ``ValueError``."""
    if w1 is None and b1 is None:
        return
    if w1 is None or b1 is None or w1.ndim != 2 or b1.shape != (w1.shape[1],) or weights.shape[0] != w1.shape[1]:
        raise ValueError("the hidden layer does not fit the output layer")


def input_dimension(weights: np.ndarray, w1: np.ndarray | None) -> int:
    """The length of the vectors the network reads."""
    return int((w1 if w1 is not None else weights).shape[0])


def hidden(v: np.ndarray, w1: np.ndarray | None, b1: np.ndarray | None) -> np.ndarray:
    """``relu(v @ w1 + b1)``, or ``v`` itself with no hidden layer: what the output layer reads."""
    return np.maximum(v @ w1 + b1, 0.0) if w1 is not None and b1 is not None else v


def read_hidden(data: Mapping[str, Any]) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The hidden layer of a weights file (``np.load``), or ``(None, None)``."""
    if "hidden_weights" not in data:
        return None, None
    return np.asarray(data["hidden_weights"], dtype=np.float32), np.asarray(data["hidden_bias"], dtype=np.float32)


def weight_arrays(weights: np.ndarray, bias: np.ndarray, w1: np.ndarray | None,
                  b1: np.ndarray | None) -> dict[str, np.ndarray]:
    """The arrays a weights file holds for the layers (float32; the hidden pair only when present)."""
    out = {"weights": weights.astype(np.float32), "bias": bias.astype(np.float32)}
    if w1 is not None and b1 is not None:
        out.update(hidden_weights=w1.astype(np.float32), hidden_bias=b1.astype(np.float32))
    return out
