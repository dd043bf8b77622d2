"""The page a result comes from: for a PDF, the page rendered as an image with the
passage's characters outlined; for other formats (or a PDF no longer on disk), the
converted text, a few chunks to a page, with the passage marked."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import InputError, NotFoundError
from ..models import StoredChunk
from . import pdf
from .marking import marked_text
from .paging import page_number, page_of, paged
from .reader import Reader, url
from .section_page import section_link, text_span

TEXT_PAGE = 8
"""Chunks of converted text on one page."""


def indexed_source(reader: Reader, name: str) -> str:
    """The stored source ``name`` names: only indexed documents are ever opened."""
    if not name:
        raise InputError("give a document: doc=NAME")
    source = reader.index.one_source(name)
    if source not in reader.documents():
        raise NotFoundError(f"no indexed document {name!r}")
    return source


def pdf_file(reader: Reader, source: str) -> Path | None:
    """The PDF file of an indexed PDF document, when it is still on disk."""
    record = reader.documents()[source]
    path = Path(source)
    return path if record.format == "pdf" and path.is_file() else None


def _target(reader: Reader, source: str, params: Mapping[str, str]) -> StoredChunk | None:
    chunk_id = params.get("chunk")
    if not chunk_id:
        return None
    found = reader.index.chunks([chunk_id]).get(chunk_id)
    if found is None or found.chunk.source != source:
        raise NotFoundError(f"no chunk {chunk_id!r} in {reader.display_name(source)!r}")
    return found


def page_context(reader: Reader, params: Mapping[str, str]) -> dict[str, Any]:
    source = indexed_source(reader, params.get("doc", ""))
    target = _target(reader, source, params)
    span = text_span(params, len(target.chunk.content)) if target else None
    passage = None
    if target is not None:
        start, end = span or (0, len(target.chunk.content))
        passage = target.chunk.content[start:end]
    context: dict[str, Any] = {
        "source": source,
        "document": reader.display_name(source),
        "target": target,
        "section_url": section_link(source, target.chunk.section_id) if target else "",
    }
    path = pdf_file(reader, source)
    if path is not None:
        context.update(_pdf_page(path, source, target, passage, params))
    else:
        if reader.documents()[source].format == "pdf":
            context["note"] = f"the PDF is not at {source}: its converted text is shown"
        context.update(_text_page(reader, source, target, span, params))
    return context


def _pdf_page(
    path: Path, source: str, target: StoredChunk | None, passage: str | None, params: Mapping
) -> dict[str, Any]:
    asked = params.get("page")
    if asked:
        layout = pdf.layout(path, page_number(asked), passage)
    else:
        layout = _passage_page(path, target, passage)
    keep = {k: params.get(k) for k in ("chunk", "start", "end")}

    def link(page: int) -> str:
        return url("/page", doc=source, page=page, **keep)

    return {
        "kind": "pdf",
        "layout": layout,
        "image_url": url("/page.png", doc=source, page=layout.number),
        "passage": passage,
        "previous_url": link(layout.number - 1) if layout.number > 1 else "",
        "next_url": link(layout.number + 1) if layout.number < layout.pages else "",
        "page_label": f"page {layout.number} of {layout.pages}",
    }


def _passage_page(path: Path, target: StoredChunk | None, passage: str | None) -> pdf.PageLayout:
    """The first of the chunk's pages that holds the passage (else its first page)."""
    chunk = target.chunk if target else None
    first = chunk.page_start if chunk and chunk.page_start else 1
    last = chunk.page_end if chunk and chunk.page_end else first
    layout = pdf.layout(path, first, passage)
    for number in range(first + 1, last + 1):
        if layout.boxes:
            break
        candidate = pdf.layout(path, number, passage)
        layout = candidate if candidate.boxes else layout
    return layout


def _text_page(
    reader: Reader,
    source: str,
    target: StoredChunk | None,
    span: tuple[int, int] | None,
    params: Mapping[str, str],
) -> dict[str, Any]:
    chunks = reader.index.chunks_of_source(source)
    asked = params.get("page")
    if asked:
        number = page_number(asked)
    else:
        ids = [c.chunk.chunk_id for c in chunks]
        position = ids.index(target.chunk.chunk_id) if target else 0
        number = page_of(position, TEXT_PAGE)
    shown = paged(chunks, number, TEXT_PAGE)
    terms = reader.term_finder(source)
    blocks = []
    for stored in shown.items:
        content = stored.chunk.content
        marks = []
        if target is not None and stored.chunk.chunk_id == target.chunk.chunk_id:
            start, end = span or (0, len(content))
            marks = [(start, end, "point")]
        blocks.append({
            "heading": stored.chunk.heading,
            "link": section_link(source, stored.chunk.section_id),
            "text": marked_text(content, marks, terms.find(content)),
        })  # fmt: skip
    keep = {k: params.get(k) for k in ("chunk", "start", "end")}
    return {
        "kind": "text",
        "blocks": blocks,
        "page_label": f"page {shown.page} of {shown.pages} of the converted text",
        "previous_url": url("/page", doc=source, page=number - 1, **keep)
        if shown.has_previous
        else "",
        "next_url": url("/page", doc=source, page=number + 1, **keep) if shown.has_next else "",
    }
