"""How a message reads: the text of a failure, and the names it gives arguments and actions, so
each shell speaks its own language.

Messages are written once, in the MCP tools' vocabulary (``filePath``, ``topK``, "run
sync_start"). The server shows them as they are; a CLI command renders them with the flags and
commands its user typed (``--file-path``, ``--top-k``, "run minirag-mcp sync"). Operations that
name an argument whose word is ordinary English (``source``, ``offset``) ask
:meth:`Wording.arg` for it instead; the distinctive tool identifiers are rewritten by
:meth:`Wording.render` wherever they appear, including in messages from the index and ingest
packages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

# The CLI command that does what each tool does (the tools without one keep their name).
CLI_COMMANDS: Mapping[str, str] = {
    "sync_start": "minirag-mcp sync",
    "sync_status": "minirag-mcp sync",
    "ingest_file": "minirag-mcp ingest",
    "ingest_url": "minirag-mcp ingest-url",
    "query_documents": "minirag-mcp query",
    "find_mentions": "minirag-mcp find",
    "read_chunk_neighbors": "minirag-mcp read-neighbors",
    "read_file": "minirag-mcp read",
    "list_files": "minirag-mcp list",
    "delete_file": "minirag-mcp delete",
}
# Tool arguments and the flag every CLI command uses for them.
CLI_FLAGS: Mapping[str, str] = {
    "topK": "--top-k",
    "dateFrom": "--date-from",
    "dateTo": "--date-to",
    "labels": "--label",
    "sort": "--sort",
    "scope": "--scope",
    "offset": "--offset",
    "before": "--before",
    "after": "--after",
    "chunkIndex": "--chunk-index",
    "source": "--source",
    "filePath": "--file-path",
    "query": "TEXT",
    "terms": "TERM",
    "url": "URL",
}


@dataclass(frozen=True)
class Wording:
    """Argument and action names for one shell (the MCP tools, or one CLI command)."""

    args: Mapping[str, str] = field(default_factory=dict)
    tools: Mapping[str, str] = field(default_factory=dict)

    def arg(self, name: str) -> str:
        """What the user calls the tool argument ``name``."""
        return self.args.get(name, name)

    def tool(self, name: str) -> str:
        """What the user runs to do what tool ``name`` does."""
        return self.tools.get(name, name)

    def render(self, message: str) -> str:
        """``message`` with the distinctive tool identifiers in it put in this shell's words."""
        names = {**{k: v for k, v in self.args.items() if _distinctive(k)}, **self.tools}
        if not names or not message:
            return message
        longest_first = sorted(names, key=len, reverse=True)
        # A whole word, and not part of a path or file name the message quotes.
        pattern = re.compile(
            r"(?<![\w/\\.-])(" + "|".join(map(re.escape, longest_first)) + r")(?![\w/\\-]|\.\w)"
        )
        return pattern.sub(lambda m: names[m.group(1)], message)


def _distinctive(name: str) -> bool:
    """A camelCase or snake_case identifier, which no sentence uses as an ordinary word."""
    return any(ch.isupper() for ch in name) or "_" in name


MCP = Wording()


def cli_wording(**positional: str) -> Wording:
    """The wording of one CLI command; ``positional`` names the arguments it takes by position
    (for ``read``: ``filePath="PATH"``)."""
    return Wording(args={**CLI_FLAGS, **positional}, tools=CLI_COMMANDS)


def error_message(exc: BaseException, store: object | None = None) -> str:
    """The message a user sees for a failed call. Our own exceptions are worded for the user;
    a foreign one is shown with its type, which is often the only clue. An error of the object
    store is one line naming ``store`` (the index location), never its debug dump."""
    from minirag_index.errors import MiniragError, brief, looks_like_store_error
    from minirag_ingest.files.names import safe_text

    try:
        text = str(exc).strip()
    except Exception:  # an exception whose message itself fails
        text = ""
    ours = isinstance(exc, MiniragError)
    if not ours and looks_like_store_error(exc):  # one line, never the Rust debug dump
        where = f" {store}" if store else ""
        return safe_text(f"the index store{where} could not be reached: {brief(exc)}")
    if (ours or isinstance(exc, ValueError | OSError | RuntimeError)) and text:
        return safe_text(text)
    # Valid UTF-8 whatever the exception holds (a file name that is not, for one).
    return safe_text(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)
