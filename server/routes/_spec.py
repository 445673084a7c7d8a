"""Facts the routes take from openapi.yaml, so the document stays the one place they are written.

Path parameter patterns, the reserved topic prefix and the Idempotency-Key pattern are read from the
document at startup; the document's exact bytes are what ``GET /openapi.yaml`` serves.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import yaml

__all__ = ["SpecFacts", "load_spec_facts"]


@dataclasses.dataclass(frozen=True, slots=True)
class SpecFacts:
    """What the service needs from openapi.yaml, read once."""

    document: bytes
    version: str
    path_patterns: dict[str, re.Pattern[str]]
    reserved_topic_prefix: str
    idempotency_key_pattern: re.Pattern[str]


def load_spec_facts(path: Path) -> SpecFacts:
    """Read the document at ``path`` and pick out the facts; KeyError names a missing one."""
    document = path.read_bytes()
    spec: dict[str, Any] = yaml.safe_load(document)
    components = spec["components"]
    path_patterns: dict[str, re.Pattern[str]] = {}
    for parameter in components["parameters"].values():
        if parameter["in"] != "path":
            continue
        schema = _resolve(spec, parameter["schema"])
        path_patterns[parameter["name"]] = re.compile(schema["pattern"])
    idempotency_schema = _resolve(spec, components["parameters"]["IdempotencyKey"]["schema"])
    return SpecFacts(
        document=document,
        version=str(spec["info"]["version"]),
        path_patterns=path_patterns,
        reserved_topic_prefix=str(components["schemas"]["Topic"]["x-spool-reserved-prefix"]),
        idempotency_key_pattern=re.compile(idempotency_schema["pattern"]),
    )


def _resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node
