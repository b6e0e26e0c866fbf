"""The ``minirag-mcp`` command: with no arguments the stdio MCP server, otherwise a one-shot
CLI action against the same index (see :mod:`minirag_mcp.commands`)."""

from __future__ import annotations

import os
import sys

EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a command whose reader left
# Commands that stop at a safe point on Ctrl-C instead of being cut off (see interrupt.py).
STOPPABLE = ("sync", "ingest", "watch")


def tune_process() -> None:
    """What this program, unlike a library, decides for its own process, before anything heavy
    is imported: glibc's and Arrow's memory settings (minirag_index.heap), onnxruntime's
    telemetry off (inherited by conversion workers), and no update check by fastmcp. py-key-value
    (fastmcp's session-state store) would instrument its modules with beartype as they are
    imported, checks that only warn, for about 90 ms of CPU."""
    from minirag_index.embedding.telemetry import keep_onnxruntime_offline
    from minirag_index.heap import tune_process_memory

    tune_process_memory()
    keep_onnxruntime_offline()
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
    os.environ.setdefault("PY_KEY_VALUE_DISABLE_BEARTYPE", "true")


def main(argv: list[str] | None = None) -> None:
    """Entry point: no arguments starts the server without loading the CLI machinery."""
    args = sys.argv[1:] if argv is None else argv
    tune_process()
    if not args:
        from minirag_mcp.server import main as server_main

        server_main()
        return
    from minirag_mcp import interrupt

    try:
        # Before anything heavy is imported, so a Ctrl-C during start-up is handled too.
        with interrupt.handled(cooperative=args[0] in STOPPABLE):
            from minirag_mcp.commands import main as run_command

            try:
                code = run_command(args)
                sys.stdout.flush()
            finally:
                stop_conversion_workers()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        code = interrupt.EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`minirag-mcp list | head`): stop quietly. stdout is pointed at
        # devnull so the interpreter's final flush does not complain about the pipe either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = EXIT_BROKEN_PIPE
    sys.exit(code)


def stop_conversion_workers() -> None:
    """Conversion workers end with the command, while its signal handling still applies:
    left to the interpreter's exit, their shutdown would be a window where Ctrl-C kills."""
    pool = sys.modules.get("minirag_ingest.conversion.pool")
    if pool is not None:
        pool.stop_all()


if __name__ == "__main__":
    main()
