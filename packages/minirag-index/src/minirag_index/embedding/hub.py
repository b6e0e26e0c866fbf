"""Whether the model hub answers, asked before fastembed downloads a model it does not hold.

fastembed retries an unreachable hub for 45-60 s before it gives up; one request with a short
timeout tells the same in seconds. The hub is huggingface_hub's ``ENDPOINT`` (``HF_ENDPOINT``,
huggingface.co by default), the address fastembed's download uses.
"""

from __future__ import annotations

# Before fastembed downloads a model it is not holding, the hub is asked once, this long at
# most: where it cannot be reached, fastembed's own retries took 45-60 s to give up.
HUB_PROBE_SECONDS = 3.0


def hub_source(model_name: str) -> tuple[str, bool] | None:
    """The Hugging Face repository fastembed downloads ``model_name`` from, and whether it has
    another source (a URL) to fall back on; None when it has no repository there."""
    from fastembed import TextEmbedding

    for described in TextEmbedding.list_supported_models():
        if described["model"] == model_name:
            sources = described.get("sources") or {}
            repo = sources.get("hf")
            return (str(repo), bool(sources.get("url"))) if repo else None
    return None


def hub_unreachable(repo: str, timeout: float = HUB_PROBE_SECONDS) -> str | None:
    """Why the model hub (HF_ENDPOINT, huggingface.co by default) cannot be reached, or None
    when it answers at all (any HTTP status). One request, ``timeout`` seconds at most."""
    import urllib.error
    import urllib.request

    from huggingface_hub import constants

    url = f"{constants.ENDPOINT.rstrip('/')}/api/models/{repo}"
    request = urllib.request.Request(url, method="HEAD", headers={"User-Agent": "minirag"})
    try:
        with urllib.request.urlopen(request, timeout=timeout):
            return None
    except urllib.error.HTTPError:
        return None  # it answered
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        return f"{constants.ENDPOINT} did not answer within {timeout:g} s ({reason})"
