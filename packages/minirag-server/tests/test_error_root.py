"""Every error our packages raise on purpose derives from one root, ``MiniragError``, so a
caller catches one class and the server words each the same way: by its own message."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil

import pytest

from minirag_index.errors import MiniragError
from minirag_mcp.wording import error_message

pytestmark = [pytest.mark.ocr, pytest.mark.classify]

PACKAGES = ("minirag_index", "minirag_ingest", "minirag_mcp", "minirag_ocr", "minirag_classify")


def our_modules() -> list[str]:
    names = []
    for package in PACKAGES:
        if importlib.util.find_spec(package) is None:
            continue  # an extra this install lacks
        root = importlib.import_module(package)
        names.append(package)
        names += [m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.")]
    return names


def error_classes() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for name in our_modules():
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a module of an optional dependency not installed
            if (exc.name or "").startswith("minirag_"):
                raise
            continue
        for _, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
                and not value.__name__.startswith("_")
            ):
                found.append(value)
    return found


def test_every_public_error_of_ours_derives_from_the_root() -> None:
    classes = error_classes()
    assert len(classes) >= 20  # the walk found the packages' errors at all
    strays = sorted(
        f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, MiniragError)
    )
    assert strays == []


def test_each_package_has_its_own_root_beneath_minirag_error() -> None:
    from minirag_ingest.errors import ConversionError, IngestError
    from minirag_mcp.errors import ServerError

    assert issubclass(IngestError, MiniragError) and issubclass(ServerError, MiniragError)
    assert issubclass(ConversionError, IngestError)


@pytest.mark.parametrize("foreign", [KeyError("chunk_id"), TypeError("bad operand")])
def test_a_foreign_error_is_shown_with_its_type_and_ours_by_its_message(
    foreign: Exception,
) -> None:
    from minirag_ingest.errors import ConversionError

    ours = ConversionError("/docs/report.pdf", "the PDF is encrypted; remove its password")
    assert error_message(ours) == "report.pdf: the PDF is encrypted; remove its password"
    assert error_message(foreign).startswith(type(foreign).__name__ + ":")
