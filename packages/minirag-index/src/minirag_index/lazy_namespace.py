"""LanceDB without the import cost of the REST namespace client it never uses here.

``import lancedb`` imports ``lance_namespace``, whose models come from the generated package
``lance_namespace_urllib3_client``; that package's ``__init__`` imports every REST API class of
the client (and urllib3 with them) before any model. Only LanceDB's remote and namespace
connections use those API classes; a local (or object-store) table never does. Measured with
``python -X importtime``, the API classes were about 40% of ``import lancedb`` (0.55 of 1.36 s
of CPU, docs/benchmarks.md "CLI start-up").

:func:`defer_rest_client` puts a stand-in for that package in ``sys.modules`` before LanceDB is
imported: a real package module (its ``__path__``, ``__spec__`` and ``__file__`` are the real
ones, so ``import lance_namespace_urllib3_client.models.x`` finds the real submodules, which is
all ``lance_namespace`` and LanceDB import at start), whose own ``__init__`` runs only when
something asks it for a name it does not have yet (``lance_namespace_urllib3_client.TableApi``,
``from lance_namespace_urllib3_client import ApiClient``). After that it is the real module,
with every name the real one has. The package is left alone when it is already imported or
cannot be found, and ``MINIRAG_EAGER_IMPORTS=1`` turns the stand-in off.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading

REST_CLIENT = "lance_namespace_urllib3_client"


def defer_rest_client(name: str = REST_CLIENT) -> bool:
    """Install the deferred stand-in for package ``name``; True when it was installed."""
    if name in sys.modules or os.environ.get("MINIRAG_EAGER_IMPORTS") == "1":
        return False
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return False
    loader = spec.loader
    module = importlib.util.module_from_spec(spec)
    lock = threading.RLock()  # a second thread waits for the first one's import to finish
    state = {"loading": False}

    def __getattr__(attr: str) -> object:
        # PEP 562: called only for a name the module does not have yet. The first such call
        # runs the package's real __init__ into this same module object.
        with lock:
            if module.__dict__.get("__getattr__") is __getattr__ and not state["loading"]:
                state["loading"] = True  # a name asked for by the __init__ itself: not yet
                try:
                    loader.exec_module(module)
                    del module.__dict__["__getattr__"]
                finally:
                    state["loading"] = False
        try:
            return module.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    sys.modules[name] = module
    return True
