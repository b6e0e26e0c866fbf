"""The rules of answering ``initialize`` and the first ``tools/list`` from a record.

Importing the MCP framework takes most of a start (about half a second here) and the two
first answers of a stdio server never change while its code, its environment and its
arguments stay the same. So the server keeps a copy of its own earlier answers (the record)
and, on a start whose fingerprint matches, gives them while the framework is still being
imported (see :mod:`minirag_mcp.early_front`, which does the I/O).

This module imports only the standard library (platformdirs aside, for the cache folder's
default), so that answering costs nothing of the framework's import: no mcp, fastmcp,
pydantic or anyio. The protocol versions the SDK negotiates at ``initialize`` are written
into the record by the real server, so the rule here follows the installed SDK without
importing it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

from platformdirs import user_cache_dir  # the same default as minirag_index.settings

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

RECORD_FORMAT = 1
#: Our packages: editable in a workspace, so their sources' mtimes are part of the key.
OUR_PACKAGES = ("minirag_mcp", "minirag_index", "minirag_ingest", "minirag_ocr", "minirag_classify")
#: Variables that change from one launch to the next of the same client and that no setting
#: of ours or of the libraries reads; every other variable is part of the key.
VOLATILE_VARIABLES = frozenset(
    {
        "_",
        "OLDPWD",
        "PWD",  # the working directory itself is part of the key
        "SHLVL",
        "COLUMNS",
        "LINES",
        "WINDOWID",
        "TERM_SESSION_ID",
        "ITERM_SESSION_ID",
        "SECURITYSESSIONID",
        "SSH_AUTH_SOCK",
        "SSH_AGENT_PID",
        "SSH_CLIENT",
        "SSH_CONNECTION",
        "SSH_TTY",
        "XDG_SESSION_ID",
        "DBUS_SESSION_BUS_ADDRESS",
        "INVOCATION_ID",
        "JOURNAL_STREAM",
        "TMUX_PANE",
        "MINIRAG_EARLY_ANSWERS",
    }
)
PRIVATE_ID_PREFIX = "minirag-early-answers-"
RECORDS_KEPT = 8  # one record per fingerprint; older ones are removed


def enabled(environ: Mapping[str, str]) -> bool:
    """MINIRAG_EARLY_ANSWERS=0 turns the feature off; so does MINIRAG_EAGER_IMPORTS=1, which
    turns every start-up deferral off."""
    off = environ.get("MINIRAG_EARLY_ANSWERS", "").strip().lower() in ("0", "false", "no", "off")
    return not off and environ.get("MINIRAG_EAGER_IMPORTS") != "1"


def records_folder(environ: Mapping[str, str]) -> Path:
    """Beside the models: CACHE_DIR (as the index settings read it), else its default."""
    cache_dir = environ.get("CACHE_DIR", "").strip()
    if cache_dir:
        base = Path(cache_dir).expanduser()
    else:
        base = Path(user_cache_dir("minirag-mcp", appauthor=False)) / "models"
    return base / "early-answers"


def source_files(folders: Iterable[str]) -> list[tuple[str, int, int]]:
    """(path, mtime ns, size) of every file under ``folders``, bytecode caches left out."""
    found = []
    for folder in folders:
        for top, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                path = os.path.join(top, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                found.append((path, st.st_mtime_ns, st.st_size))
    return found


def installed_distributions(path: Iterable[str]) -> list[str]:
    """The distribution folders (name and version) on the import path: any install, upgrade
    or removal of a package, the optional extras included, changes this list."""
    names: list[str] = []
    for entry in path:
        try:
            listing = os.listdir(entry or ".")
        except OSError:
            continue
        names.extend(f"{entry}/{n}" for n in listing if n.endswith((".dist-info", ".egg-info")))
    return sorted(names)


def fingerprint_inputs() -> dict[str, Any]:
    """Everything the two answers could depend on, read from this process."""
    packages: dict[str, Any] = {}
    for name in OUR_PACKAGES:
        spec = find_spec(name)
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        packages[name] = source_files(folders) if spec is not None else None
    return {
        "format": RECORD_FORMAT,
        "python": [sys.executable, sys.version, sys.prefix],
        "distributions": installed_distributions(sys.path),
        "packages": packages,
        "argv": sys.argv,
        "cwd": os.getcwd(),
        "environment": sorted((k, v) for k, v in os.environ.items() if k not in VOLATILE_VARIABLES),
    }


def fingerprint(inputs: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def negotiated_version(params: Mapping[str, Any], record: Mapping[str, Any]) -> str:
    """The protocol version the SDK answers ``initialize`` with: the client's if the SDK
    offers it at the handshake, else the SDK's latest (both lists recorded from the SDK)."""
    requested = params.get("protocolVersion")
    if requested in record["handshake_versions"]:
        return str(requested)
    return str(record["latest_handshake_version"])


def _plain_meta(params: Mapping[str, Any]) -> bool:
    """No per-request protocol envelope (2026 era): a legacy ``_meta`` holds at most a
    progress token."""
    meta = params.get("_meta", {})
    return isinstance(meta, dict) and set(meta) <= {"progressToken"}


def is_request(message: Any, method: str) -> bool:
    return (
        isinstance(message, dict)
        and message.get("jsonrpc") == "2.0"
        and message.get("method") == method
        and isinstance(message.get("id"), (int, str))
        and not isinstance(message.get("id"), bool)
    )


def answerable_initialize(message: Any) -> bool:
    """An ``initialize`` the SDK would accept, so that its answer is the recorded one."""
    if not is_request(message, "initialize"):
        return False
    params = message.get("params")
    if not isinstance(params, dict) or not _plain_meta(params):
        return False
    info = params.get("clientInfo")
    return (
        isinstance(params.get("protocolVersion"), str)
        and isinstance(params.get("capabilities"), dict)
        and isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    )


def answerable_tools_list(message: Any) -> bool:
    """A ``tools/list`` for the first page (no cursor) and nothing else asked."""
    if not is_request(message, "tools/list"):
        return False
    params = message.get("params")
    if params is None:
        return True
    return isinstance(params, dict) and set(params) <= {"_meta"} and _plain_meta(params)


def response_line(request_id: int | str, result: Any) -> bytes:
    """A JSON-RPC response as the SDK writes it: compact, UTF-8, one line."""
    body = {"jsonrpc": "2.0", "id": request_id, "result": result}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def record_answers(record: Mapping[str, Any] | None, version: str) -> dict[str, Any] | None:
    """The recorded initialize and tools/list results for ``version``, if both are there."""
    if record is None:
        return None
    answers = record.get("answers", {}).get(version)
    if isinstance(answers, dict) and "initialize" in answers and "tools/list" in answers:
        return answers
    return None


def updated_record(
    record: Mapping[str, Any] | None,
    key: str,
    versions: Mapping[str, Any],
    version: str,
    answers: Mapping[str, Any],
) -> dict[str, Any]:
    """``record`` (or a new one for ``key``) with ``answers`` for ``version`` and the SDK's
    negotiation lists ``versions`` (handshake_versions, latest_handshake_version)."""
    kept = dict(record.get("answers", {})) if record and record.get("fingerprint") == key else {}
    kept[version] = dict(answers)
    return {"format": RECORD_FORMAT, "fingerprint": key, **versions, "answers": kept}


def read_record(folder: Path, key: str) -> dict[str, Any] | None:
    """The record for ``key``, or None when there is none or it cannot be used."""
    try:
        record = json.loads((folder / f"{key[:32]}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        not isinstance(record, dict)
        or record.get("format") != RECORD_FORMAT
        or record.get("fingerprint") != key
        or not isinstance(record.get("handshake_versions"), list)
        or not isinstance(record.get("latest_handshake_version"), str)
        or not isinstance(record.get("answers"), dict)
    ):
        return None
    return record


def write_record(folder: Path, record: Mapping[str, Any]) -> None:
    """Replace the record atomically, then keep only the newest :data:`RECORDS_KEPT`."""
    import tempfile  # only when writing, off the early path

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{record['fingerprint'][:32]}.json"
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".record-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(record, out, ensure_ascii=False)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    records = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in records[RECORDS_KEPT:]:
        old.unlink(missing_ok=True)
