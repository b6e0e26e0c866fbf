"""A running sync's progress, sent to a client that asked for it with a progress token."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import anyio
from fastmcp import Context

from minirag_mcp import operations as ops
from minirag_mcp.context import AppContext

log = logging.getLogger(__name__)

PROGRESS_INTERVAL = 0.5  # seconds between a running sync's progress notifications
# Progress reporters of running syncs, held so their tasks are not collected mid-way.
_REPORTERS: set[asyncio.Task[None]] = set()


def progress_token(ctx: Context | None) -> Any:
    """The progress token the client sent with this request, if any: the ``progressToken``
    of the request's ``_meta`` block, which fastmcp's request context carries as ``meta``."""
    request = ctx.request_context if ctx is not None else None
    meta = request.meta if request is not None else None
    return meta.get("progressToken") if meta is not None else None


async def report_sync_progress(app: AppContext, session: Any, token: Any, job_id: str) -> None:
    """Send progress notifications for a running job until it ends (best effort)."""
    last: tuple[int, int, int | None] | None = None
    try:
        while True:
            current = await anyio.to_thread.run_sync(ops.sync_status, app, job_id)
            progress = current.progress
            seen = (progress.done, progress.total, progress.chunks_embedded)
            if seen != last:
                last = seen
                message = f"sync {current.state}"
                if progress.chunks_embedded is not None:
                    message += (
                        f", embedding {progress.chunks_embedded} of "
                        f"{progress.chunks_to_embed} chunks"
                    )
                await session.send_progress_notification(
                    progress_token=token,
                    progress=float(progress.done),
                    total=float(progress.total) or None,
                    message=message,
                )
            if current.state != "running":
                return
            await anyio.sleep(PROGRESS_INTERVAL)
    except Exception:
        log.debug("progress reporting stopped", exc_info=True)


def follow(ctx: Context, app: AppContext, job_id: str) -> None:
    """Report a started job's progress to a client that asked for it."""
    token = progress_token(ctx)
    if token is None:
        return
    try:
        session = ctx.session
    except Exception:
        return
    task = asyncio.ensure_future(report_sync_progress(app, session, token, job_id))
    _REPORTERS.add(task)
    task.add_done_callback(_REPORTERS.discard)
