"""The benchmark corpora the tests read (read-only, never copied into the repo), found
through ``$HIERDOC_DATASETS`` as everywhere else
(:func:`hierdoc.eval.datasets.default_datasets`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hierdoc.eval.datasets import default_datasets

DATASETS = default_datasets()
GDPR_MD = DATASETS / "gdpr" / "gdpr.md"
GDPR_TXT = DATASETS / "gdpr" / "gdpr.txt"
HR8847_PDF = DATASETS / "pdf" / "HR8847_CNIMDT_AIGCE_STD_Act.pdf"

#: The 26 terms GDPR Article 4 defines, in order.
GDPR_ARTICLE_4_TERMS = [
    "personal data",
    "processing",
    "restriction of processing",
    "profiling",
    "pseudonymisation",
    "filing system",
    "controller",
    "processor",
    "recipient",
    "third party",
    "consent",
    "personal data breach",
    "genetic data",
    "biometric data",
    "data concerning health",
    "main establishment",
    "representative",
    "enterprise",
    "group of undertakings",
    "binding corporate rules",
    "supervisory authority",
    "supervisory authority concerned",
    "cross-border processing",
    "relevant and reasoned objection",
    "information society service",
    "international organisation",
]


def require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"dataset not found: {path} (set HIERDOC_DATASETS)")
    return path
