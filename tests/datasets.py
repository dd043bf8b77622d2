"""Where the shared benchmark corpora live (read-only, never copied into the repo)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATASETS = Path(
    os.environ.get("HIERDOC_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets")
)
GDPR_MD = DATASETS / "gdpr" / "gdpr.md"
GDPR_TXT = DATASETS / "gdpr" / "gdpr.txt"
HR8847_PDF = DATASETS / "pdf" / "HR8847_CNIMDT_AIGCE_STD_Act.pdf"


def require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"dataset not found: {path} (set HIERDOC_DATASETS)")
    return path
