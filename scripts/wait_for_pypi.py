"""Wait for a version of the server's PyPI package, then check its MCP Registry marker.

    python scripts/wait_for_pypi.py --version 0.1.0 [--timeout 1800] [--interval 30]

The package name and the registry name come from server.json. The MCP Registry checks
ownership of a PyPI package by looking for ``<!-- mcp-name: <registry name> -->`` in the
description PyPI serves for that version, so this fails when the marker is missing: that
release cannot be registered, and a re-run will not change it. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fetch(url: str) -> dict | None:
    """The JSON at ``url``, or None while PyPI answers 404."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return json.load(response)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", required=True)
    parser.add_argument("--timeout", type=float, default=1800, help="seconds (default 30 min)")
    parser.add_argument("--interval", type=float, default=30)
    parser.add_argument("--server-json", type=Path, default=ROOT / "server.json")
    args = parser.parse_args()

    server = json.loads(args.server_json.read_text(encoding="utf-8"))
    package = next(p for p in server["packages"] if p["registryType"] == "pypi")
    marker = f"<!-- mcp-name: {server['name']} -->"
    project_url = f"https://pypi.org/pypi/{package['identifier']}/json"
    version_url = f"https://pypi.org/pypi/{package['identifier']}/{args.version}/json"

    deadline = time.monotonic() + args.timeout
    while True:
        try:
            data = fetch(version_url)
            if data is None:
                # Some mirrors serve only the project document; its info is the newest release.
                latest = fetch(project_url)
                if latest is not None and latest["info"]["version"] == args.version:
                    data = latest
        except (urllib.error.URLError, TimeoutError) as exc:
            print(f"PyPI did not answer ({exc}); retrying", flush=True)
            data = None
        if data is not None:
            break
        if time.monotonic() >= deadline:
            print(
                f"error: {package['identifier']} {args.version} did not appear on PyPI within "
                f"{args.timeout:.0f}s. Publish the GitHub release (release.yml uploads it), "
                "then re-run this workflow."
            )
            return 1
        print(f"{package['identifier']} {args.version} is not on PyPI yet; waiting", flush=True)
        time.sleep(args.interval)

    description = data["info"].get("description") or ""
    if marker not in description:
        print(
            f"error: the description PyPI serves for {package['identifier']} {args.version} "
            f"lacks {marker!r}; the registry will refuse this version. Add the marker to the "
            "package README before the next release."
        )
        return 1
    print(f"ok: {package['identifier']} {args.version} is on PyPI with {marker}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
