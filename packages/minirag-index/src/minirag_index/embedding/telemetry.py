"""onnxruntime's usage telemetry, switched off before the library loads.

The onnxruntime 1.32 wheel carries Microsoft's 1DS telemetry client on Linux too: some
nine seconds after ``import onnxruntime`` it resolves ``mobile.events.data.microsoft.com`` and
keeps retrying with backoff. ``onnxruntime.disable_telemetry_events()`` does not stop it; the
``ORT_DISABLE_TELEMETRY`` environment variable does, but only when it is set before the library
is loaded (measured with strace in a network namespace: docs/security.md).

Importing this package sets nothing. The variable is set when a model is about to be loaded
(:class:`~minirag_index.embedding.embedder.Embedder`, the OCR engine) and, for the server, by its
entry
point before anything else, so conversion workers inherit it and markitdown's file-type model
runs with it too.
"""

from __future__ import annotations

import os

TELEMETRY_SWITCH = "ORT_DISABLE_TELEMETRY"


def keep_onnxruntime_offline() -> None:
    """Turn onnxruntime's telemetry off for this process and every process it starts.

    Overrides any value already set: this server promises no network use but the model
    download and ingest_url. It takes effect only if onnxruntime is not loaded yet (in a library
    user's program that loaded it first, set the variable before starting Python).
    """
    os.environ[TELEMETRY_SWITCH] = "1"
