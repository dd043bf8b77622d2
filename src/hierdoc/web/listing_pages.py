"""The pages that list the index: its documents, its glossary, a document's outline."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .page_view import indexed_source
from .paging import page_number, paged
from .reader import Reader, url
from .section_page import outline_page, section_link

DOCUMENTS_PAGE = 50
GLOSSARY_PAGE = 50


def documents_context(reader: Reader, params: Mapping[str, str]) -> dict[str, Any]:
    """The ``hierdoc ls`` table, one page of it, each document linked to its outline."""
    records = sorted(reader.documents().values(), key=lambda d: d.source)
    shown = paged(records, page_number(params.get("page")), DOCUMENTS_PAGE)
    counts = reader.definition_counts()
    rows = [
        {
            "record": record,
            "name": reader.display_name(record.source),
            "sections": len(reader.index.store.sections_of_source(record.source)),
            "definitions": counts[record.source],
            "outline": url("/outline", doc=record.source),
            "metadata": metadata_line(record.metadata),
        }
        for record in shown.items
    ]
    return {"rows": rows, "paging": shown, **_links("/documents", shown, {})}


def metadata_line(metadata: Mapping[str, Any]) -> str:
    """``date: 2008-04-16; keywords: FIPS 199, Standards...``: keys in order, lists joined."""

    def shown(value: Any) -> str:
        return ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)

    return "; ".join(f"{key}: {shown(metadata[key])}" for key in sorted(metadata))


def glossary_context(reader: Reader, params: Mapping[str, str]) -> dict[str, Any]:
    """Every defined term (those containing ``q``, when given), where it is defined, and
    conflicting definitions side by side."""
    wanted = params.get("q", "").strip()
    entries = reader.glossary()
    if wanted:
        folded = wanted.casefold()
        entries = [e for e in entries if folded in e.term.casefold()]
    shown = paged(entries, page_number(params.get("page")), GLOSSARY_PAGE)
    rows = [
        {
            "entry": entry,
            "definitions": [
                {
                    "definition": d,
                    "document": reader.display_name(d.source),
                    "link": section_link(d.source, d.section_id),
                }
                for d in entry.definitions
            ],
        }
        for entry in shown.items
    ]
    return {"rows": rows, "paging": shown, "q": wanted, **_links("/glossary", shown, {"q": wanted})}


def outline_context(reader: Reader, params: Mapping[str, str]) -> dict[str, Any]:
    source = indexed_source(reader, params.get("doc", ""))
    outline = outline_page(
        reader, source, page_number(params.get("outline_page")), None, "/outline", doc=source
    )
    return {"outline": outline, "document": reader.display_name(source), "source": source}


def _links(base: str, shown: Any, keep: dict[str, Any]) -> dict[str, str]:
    return {
        "previous_url": url(base, **keep, page=shown.page - 1) if shown.has_previous else "",
        "next_url": url(base, **keep, page=shown.page + 1) if shown.has_next else "",
    }
