"""The base of every result model: camelCase on the wire, fields left out while unset.

Fields are snake_case in Python and camelCase on the wire (``chunk_index`` is ``chunkIndex``):
the models serialize by alias, so fastmcp publishes each tool's output schema with named
properties and sends its structured content in those names, and a CLI command's ``--json`` is
:meth:`Result.dump` of the same model.

A field declared with :func:`omitted` is left out of the payload while it is None (a tool says
``scope`` only when one was given); a field typed ``X | None`` without it is always there and
may be null (a hit's ``distance`` when only the keyword side found it). A row with
:class:`LabelledRow` carries ``labels``, ``date`` and ``dateSource`` together, and only while
the corpus has document labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer
from pydantic.alias_generators import to_camel

from minirag_ingest.files.names import json_safe


def _is_none(value: Any) -> bool:
    return value is None


def omitted() -> Any:
    """A field that is absent from the payload while it is None."""
    return Field(default=None, exclude_if=_is_none)


class Result(BaseModel):
    """Base of every result: camelCase on the wire, snake_case in Python."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        serialize_by_alias=True,
        validate_by_name=True,
        extra="forbid",
    )

    # Keys shown only while an attribute is set (not None, not False), even when their own
    # value is null: wire key -> attribute.
    _shown_with: ClassVar[Mapping[str, str]] = {}

    def dump(self) -> dict[str, Any]:
        """The payload as JSON-ready data: what the tool sends and what --json prints."""
        return self.model_dump(mode="json")

    # No return annotation on purpose: pydantic would publish an annotated return type as the
    # model's output schema, in place of its own named properties.
    @model_serializer(mode="wrap")
    def _hide_unset_groups(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        data = handler(self)
        if isinstance(data, dict):
            for key, attribute in self._shown_with.items():
                if getattr(self, attribute) in (None, False):
                    data.pop(key, None)
        # A file name that is not valid UTF-8 (and text derived from it) is spelled out, so
        # that the payload always serialises (see minirag_ingest.files.names).
        return json_safe(data)


class LabelledRow(Result):
    """A row that carries ``labels``, ``date`` and ``dateSource`` while labels are on.

    ``labels`` None means the corpus has no taxonomy file: the three keys are left out. With
    labels on, ``date`` and ``dateSource`` are there even when null (an undated document)."""

    _shown_with: ClassVar[Mapping[str, str]] = {
        "labels": "labels",
        "date": "labels",
        "dateSource": "labels",
    }


def iso_time(timestamp: float) -> str:
    """A time.time() timestamp as ISO 8601 UTC, to the second."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")
