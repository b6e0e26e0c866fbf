"""``import lancedb`` and ``import fastembed`` without parts this project never uses.

Measured with ``python -X importtime`` and wall clocks (docs/benchmarks.md, "CLI start-up"),
importing LanceDB and fastembed was most of what a one-shot ``find`` or ``query`` waits for.
Four parts of those imports, and one of datasketch's, do nothing here:

1. **LanceDB's REST namespace client.** ``lance_namespace`` takes its models from the generated
   package ``lance_namespace_urllib3_client``, whose ``__init__`` imports every REST API class
   (and urllib3) before any model. Only remote and namespace connections use those classes.
   :func:`defer_rest_client` puts a stand-in for the package in ``sys.modules``: a real package
   module (its ``__path__``, ``__spec__`` and ``__file__`` are the real ones, so
   ``import lance_namespace_urllib3_client.models.x`` finds the real submodules, which is all
   LanceDB imports at start) whose own ``__init__`` runs the first time something asks it for a
   name it does not have yet. After that it is the real module, with every name the real one has.
2. **A pandas import for one probe.** While ``pyarrow._dataset`` initialises, it builds a scalar,
   and pyarrow's check "is this value a pandas object?" imports pandas to answer (about 0.2 s).
   :func:`hide_pandas_from_dataset_probe` lets that one import, in that one thread, fail as if
   pandas were not installed. pyarrow then answers its "is it pandas?" checks with no - nothing
   here hands it pandas objects - while a real use (``Table.to_pandas()``, LanceDB's
   ``to_pandas``) imports pandas then: pyarrow retries the import whenever pandas is required.
3. **Bytecode checks of ``@override``.** On Python 3.11 LanceDB takes ``override`` and
   ``EnforceOverrides`` from the ``overrides`` package, whose decorator disassembles its
   caller's bytecode to check each of LanceDB's hundred-odd decorated methods as they are
   defined; on 3.12 and later LanceDB uses ``typing.override`` and a plain base class instead.
   :func:`plain_overrides` gives 3.11 that same behaviour through a stand-in ``overrides``
   module with those two names; any other name runs the real package.
4. **httpx's command-line client.** fastembed imports huggingface_hub (for downloads), which
   imports httpx, whose ``__init__`` imports its CLI (click, rich, pygments) inside
   ``try: ... except ImportError`` with a stand-in ``main`` for installs without them.
   :func:`skip_httpx_cli` makes that one import take the except branch; ``import httpx._main``
   at any other moment works as before.
5. **datasketch's other sketches.** Look-alike signatures need ``datasketch.minhash`` alone, but
   the package's ``__init__`` imports every sketch it has, and its HNSW and LSH-ensemble
   modules import scipy: 355 modules and 53 MiB resident in the middle of a server's first
   sync. :func:`defer_datasketch` installs the same stand-in as for the REST client, so
   ``from datasketch.minhash import MinHash`` loads that module (and ``datasketch.hashfunc``)
   only, while any name asked of ``datasketch`` itself runs the real ``__init__``.

Each is left alone when its package is already imported or cannot be found, and
``MINIRAG_EAGER_IMPORTS=1`` turns all of them off.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import threading
from collections.abc import Sequence
from types import ModuleType
from typing import Any

REST_CLIENT = "lance_namespace_urllib3_client"
OVERRIDES = "overrides"
HTTPX_CLI = "httpx._main"
DATASKETCH = "datasketch"


def eager_imports() -> bool:
    """MINIRAG_EAGER_IMPORTS=1: everything imported the ordinary way (to compare)."""
    return os.environ.get("MINIRAG_EAGER_IMPORTS") == "1"


def lighten_imports() -> None:
    """Install all five before anything imports LanceDB, fastembed or datasketch (our modules
    import them inside functions)."""
    if eager_imports():
        return
    defer_rest_client()
    hide_pandas_from_dataset_probe()
    if sys.version_info < (3, 12):
        plain_overrides()
    skip_httpx_cli()
    defer_datasketch()


def deferred_package(name: str, names: dict[str, Any] | None = None) -> bool:
    """Put a stand-in for package ``name`` in ``sys.modules`` that holds ``names`` and runs the
    real ``__init__`` when asked for any other; True when it was installed."""
    if name in sys.modules or eager_imports():
        return False
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return False
    loader = spec.loader
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(names or {})
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


def defer_rest_client(name: str = REST_CLIENT) -> bool:
    """Install the deferred stand-in for LanceDB's REST client package; True when installed."""
    return deferred_package(name)


def defer_datasketch(name: str = DATASKETCH) -> bool:
    """Install the deferred stand-in for datasketch (its submodules import as usual)."""
    return deferred_package(name)


class EnforceOverrides:
    """What LanceDB itself uses on Python 3.12+ in place of ``overrides.EnforceOverrides``."""


def plain_overrides(name: str = OVERRIDES) -> bool:
    """Give ``overrides`` the ``override`` of ``typing_extensions`` (``typing.override`` as of
    3.12: it marks the method and checks nothing) and a plain ``EnforceOverrides``."""
    from typing_extensions import override  # pydantic's dependency, so always there

    names = {"override": override, "overrides": override, "EnforceOverrides": EnforceOverrides}
    return deferred_package(name, names)


class _PandasProbeHider(importlib.abc.MetaPathFinder):
    """Imports ``pyarrow._dataset`` the first time ``pyarrow.dataset`` is looked for, with
    ``import pandas`` failing in this thread meanwhile; then steps out of the import system."""

    def __init__(self) -> None:
        self.hiding_in: int | None = None  # the thread whose pandas import fails

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname == "pandas" and self.hiding_in == threading.get_ident():
            raise ImportError("pandas is not imported for pyarrow's probe (lighter_imports.py)")
        if fullname != "pyarrow.dataset" or self.hiding_in is not None:
            return None
        try:
            if "pandas" not in sys.modules and "pyarrow._dataset" not in sys.modules:
                self.hiding_in = threading.get_ident()
                importlib.import_module("pyarrow._dataset")
        finally:
            self.hiding_in = None
            self.step_out()
        return None  # the ordinary finders load pyarrow.dataset, its _dataset already there

    def step_out(self) -> None:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)


def hide_pandas_from_dataset_probe() -> bool:
    """Install the finder; True when it was (pyarrow's datasets not imported yet, nor pandas)."""
    if eager_imports() or "pyarrow.dataset" in sys.modules or "pandas" in sys.modules:
        return False
    if any(isinstance(finder, _PandasProbeHider) for finder in sys.meta_path):
        return False
    sys.meta_path.insert(0, _PandasProbeHider())
    return True


class _SkipWhileParentLoads(importlib.abc.MetaPathFinder):
    """Fails the import of ``name`` while its parent package's ``__init__`` runs (the parent
    falls back as it does for an install without it); any other time it imports as usual."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.parent = name.rpartition(".")[0]

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname == self.name:
            parent = sys.modules.get(self.parent)
            # importlib marks a module's spec "_initializing" while its code runs
            if parent is not None and getattr(parent.__spec__, "_initializing", False):
                raise ImportError(f"{fullname} is not imported (lighter_imports.py)")
        return None


def skip_httpx_cli(name: str = HTTPX_CLI) -> bool:
    """Install the finder for httpx's CLI; True when it was (httpx not imported yet)."""
    parent = name.rpartition(".")[0]
    if eager_imports() or parent in sys.modules:
        return False
    if any(isinstance(f, _SkipWhileParentLoads) and f.name == name for f in sys.meta_path):
        return False
    sys.meta_path.insert(0, _SkipWhileParentLoads(name))
    return True
