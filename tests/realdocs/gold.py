"""The gold files of the real documents: one ``NAME.gold.yaml`` per document (see harness.py
for the format and the metrics)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

DOCS_DIR = Path(__file__).resolve().parent
DOCUMENT_SUFFIXES = (".docx", ".pdf", ".html", ".md")


@dataclass(frozen=True)
class GoldSection:
    number: str
    heading: str


@dataclass(frozen=True)
class GoldDefinition:
    term: str
    starts: str
    optional: bool = False
    """A term whose status as a definition is debatable: right if stored as given, not
    needed for recall."""


@dataclass(frozen=True)
class GoldCitation:
    query: str
    section: str
    heading: str


@dataclass(frozen=True)
class GoldReference:
    """A cross-reference the document makes: its words (``Section 8.4``) and the section it
    points to."""

    text: str
    section: str
    heading: str


@dataclass(frozen=True)
class GoldPage:
    phrase: str
    page: int


@dataclass(frozen=True)
class Gold:
    """One document with its hand-written gold lists."""

    name: str
    document: Path
    sections: tuple[GoldSection, ...]
    definitions: tuple[GoldDefinition, ...]
    citations: tuple[GoldCitation, ...]
    pages: tuple[GoldPage, ...] = ()
    questions: tuple[GoldCitation, ...] = ()
    """Natural-language questions, each answered by one section (hit@1 and hit@5)."""
    references: tuple[GoldReference, ...] = ()

    @property
    def format(self) -> str:
        return self.document.suffix.lstrip(".")


def load_gold(path: Path) -> Gold:
    """A gold file; its ``document`` is resolved next to it."""
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return Gold(
        name=path.name.removesuffix(".gold.yaml"),
        document=path.parent / data["document"],
        sections=tuple(GoldSection(str(s["number"]), s["heading"]) for s in data["sections"]),
        definitions=tuple(
            GoldDefinition(d["term"], d["starts"], bool(d.get("optional")))
            for d in data["definitions"]
        ),
        citations=tuple(
            GoldCitation(c["query"], str(c["section"]), c["heading"]) for c in data["citations"]
        ),
        pages=tuple(GoldPage(p["phrase"], int(p["page"])) for p in data.get("pages") or ()),
        questions=tuple(
            GoldCitation(q["query"], str(q["section"]), q["heading"])
            for q in data.get("questions") or ()
        ),
        references=tuple(
            GoldReference(r["text"], str(r["section"]), r["heading"])
            for r in data.get("references") or ()
        ),
    )


def load_golds(docs_dir: Path = DOCS_DIR) -> list[Gold]:
    """Every gold file of a folder, by name."""
    return [load_gold(path) for path in sorted(docs_dir.glob("*.gold.yaml"))]
