"""Where an index keeps the local models fine-tuned on it, and how they are named.

A tuned model lives in ``<index>/tuned/v<N>/``: the sentence-transformers files and
``provenance.json`` (base model, pairs, seed, date, hierdoc version), written last, so
that a directory without it is a training that stopped. Training writes into
``v<N>.partial/`` and renames it when done. The index's meta names the model its vectors
were made with, ``<base>@tuned-v<N>``; a version that is complete but not named there is
a re-embedding that has not been switched in yet (``hierdoc tune`` resumes it).
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError

TUNED_DIR = "tuned"
PROVENANCE_FILE = "provenance.json"
PARTIAL_SUFFIX = ".partial"
_NAME = re.compile(r"^(?P<base>.+)@tuned-v(?P<version>\d+)$")
_VERSION_DIR = re.compile(r"^v(\d+)$")


@dataclass(frozen=True)
class TunedModel:
    """A complete tuned model of one index: its version, directory and provenance."""

    version: int
    path: Path
    provenance: dict[str, Any]

    @property
    def name(self) -> str:
        return tuned_name(self.provenance["base_model"], self.version)


def tuned_name(base: str, version: int) -> str:
    return f"{base}@tuned-v{version}"


def parse_tuned_name(name: str | None) -> tuple[str, int] | None:
    """(base model, version) of a tuned model's name; None for any other name."""
    found = _NAME.match(name or "")
    return (found["base"], int(found["version"])) if found else None


def tuned_root(index_dir: Path) -> Path:
    return index_dir / TUNED_DIR


def version_dir(index_dir: Path, version: int) -> Path:
    return tuned_root(index_dir) / f"v{version}"


def read_tuned(index_dir: Path, version: int) -> TunedModel | None:
    """The complete tuned model of this version, or None (missing, or training stopped)."""
    path = version_dir(index_dir, version)
    try:
        provenance = json.loads((path / PROVENANCE_FILE).read_text())
    except (OSError, ValueError):
        return None
    return TunedModel(version, path, provenance)


def tuned_model_for(index_dir: Path, name: str) -> TunedModel:
    """The tuned model an index's meta names; its files missing is a :class:`ConfigError`."""
    parsed = parse_tuned_name(name)
    if parsed is None:
        raise ConfigError(f"{name!r} is not the name of a tuned model")
    model = read_tuned(index_dir, parsed[1])
    if model is None:
        raise ConfigError(
            f"this index was re-embedded with {name}, but its files are missing from "
            f"{version_dir(index_dir, parsed[1])}: restore them, run `hierdoc tune` again, "
            "or rebuild with the base model: hierdoc ingest --force"
        )
    return model


def versions(index_dir: Path) -> list[int]:
    """The version numbers with a directory (complete, stopped or partial), ascending."""
    root = tuned_root(index_dir)
    if not root.is_dir():
        return []
    found = set()
    for entry in root.iterdir():
        match = _VERSION_DIR.match(entry.name.removesuffix(PARTIAL_SUFFIX))
        if match:
            found.add(int(match[1]))
    return sorted(found)


def remove_versions(index_dir: Path, keep: set[int]) -> None:
    """Delete every version directory (complete or not) but those of ``keep``."""
    root = tuned_root(index_dir)
    for version in versions(index_dir):
        if version in keep:
            continue
        for path in (root / f"v{version}", root / f"v{version}{PARTIAL_SUFFIX}"):
            shutil.rmtree(path, ignore_errors=True)
