"""Messages in each shell's words: tool identifiers become the CLI's commands and flags, and a
path the message quotes is never rewritten."""

from __future__ import annotations

from minirag_mcp.wording import MCP, cli_wording

MESSAGE = (
    "/docs/read_file/list_files.md is not in the index. Run sync_start (or ingest_file) first, "
    "or check the path with list_files."
)


def test_the_cli_names_its_commands_and_leaves_quoted_paths_alone() -> None:
    assert cli_wording().render(MESSAGE) == (
        "/docs/read_file/list_files.md is not in the index. Run minirag-mcp sync (or minirag-mcp "
        "ingest) first, or check the path with minirag-mcp list."
    )
    assert cli_wording().render("topK must be at least 1") == "--top-k must be at least 1"


def test_a_positional_argument_is_named_as_the_command_shows_it() -> None:
    assert cli_wording(filePath="PATH").render("filePath is required") == "PATH is required"
    assert cli_wording().render("filePath is required") == "--file-path is required"


def test_the_tools_keep_their_own_words() -> None:
    assert MCP.render(MESSAGE) == MESSAGE
    assert MCP.arg("offset") == "offset" and cli_wording().arg("offset") == "--offset"
