"""The index as MCP tools for agents: ``hierdoc serve`` over stdio or streamable HTTP.

Five read-only tools (``search``, ``get_section``, ``define``, ``references``,
``list_documents``) wrap :class:`hierdoc.api.Index`. Each returns structured
content (the same shapes as the CLI's ``--json``) and a compact text rendering in
which every passage cites its document and section id, because many MCP clients
show the model only the text.

Safety: no tool takes a file path or writes anything; every input is validated
with a message that says how to fix the call; a failing call is an error result,
never a dead server; HTTP binds to loopback unless ``--allow-remote`` is given.

The tool functions are plain Python (``run_search`` and friends) so that
:mod:`hierdoc.agents` serves the same behaviour to function-calling frameworks.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import sys
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol, TypeVar

import anyio
import anyio.to_thread
import click
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.fastmcp.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from ..api import ChunkView, Index, ReferenceLookup
from ..config import MAX_TOP_K, Settings, load_settings
from ..errors import InputError
from ..models import CrossRef, SectionRecord
from ..pipeline.numbering import find_citations

logger = logging.getLogger(__name__)

SERVER_NAME = "hierdoc"
MAX_QUERY_CHARS = 2000
MAX_ID_CHARS = 300
MAX_TERM_CHARS = 200
MAX_PASSAGE_CHARS = 4000
DEFINITION_PREVIEW_CHARS = 240
TOOL_NAMES = ("search", "get_section", "define", "references", "list_documents")
SearchModeName = Literal["hybrid", "semantic", "keyword", "exact"]

# -- what the model reads -------------------------------------------------------------


def _unwrap(text: str) -> str:
    """Join the lines of each paragraph: source is wrapped for people, a model reads prose."""
    return "\n\n".join(" ".join(p.split()) for p in text.split("\n\n"))


INSTRUCTIONS = _unwrap("""\
These tools search a local index of formal documents (legislation, regulations, contracts,
standards). Start with `search`. Cite what you use by file name and section id, as the results
give them (e.g. "gdpr.md, article-17-3-b"). Read a whole provision with `get_section`, check what
a defined term means in these documents with `define`, follow cross-references with
`references`, and see what is indexed with `list_documents`. When a result says no_match, the
documents do not answer the question: say so rather than guess.""")

CITATION_SPELLINGS = (
    '"Article 17(3)(b)", "Art. 17(3)(b)", "Article 17 paragraph 3 point (b)", '
    '"Article 17(3), point (b)", "Section 203(a)(1)", "sec. 203(a)(1)", "§ 203(a)(1)", "§ 4.2", '
    '"Chapter III"'
)

DESCRIPTIONS = {
    "search": f"""\
Search the indexed documents and return the best passages, each with its document (file name),
where it sits in the structure (e.g. "Chapter III > Section 3 > Article 17") and its section id.
Use it first for any question about the documents.

The query can be plain words ("right to be forgotten"), a "quoted phrase" that must appear as
written, an acronym, or a citation in any common spelling: {CITATION_SPELLINGS}. A cited section
comes first; a citation that is not in the index is reported in `notes` instead of returning
unrelated text. Hybrid mode (the default) combines meaning, keywords and exact citations; use
mode "exact" to get only passages holding a quoted phrase or cited section, "keyword" for rare
terms.

If `no_match` is true nothing convincing was found: say that the documents do not cover it.
Narrow with `source` (a file name from list_documents) or `section` (a section id such as
"chapter-3"; everything under it is searched). Each passage lists the definitions of defined
terms it uses and the cross-references it makes. Cite passages by file name and section id.""",
    "get_section": f"""\
Read one provision in full, with where it sits: its parent chain, its own text, the passage that
holds it, its children (numbered paragraphs, points) and the previous and next passages. `id` is
a section id from search results ("article-17", "article-17-3-b", "section-203-a"), a chunk id
("gdpr-a2c219:article-17:0"), or a citation ({CITATION_SPELLINGS}). Use it to read a cited or
cross-referenced provision, or to continue to the next passage. When several documents have the
same section id, pass `source` (a file name from list_documents) to choose.""",
    "define": """\
What a term means in these documents: every definition of the term in the corpus ("X means ...",
definition sections and glossaries, parenthetical definitions, acronyms), each with its file name
and section id. `conflict` is true when documents define the term differently: then say which
document's definition you rely on. Use it before interpreting a defined term such as
"personal data" or "Confidential Information". An empty list means the documents do not define
the term.""",
    "references": """\
Cross-references of a provision: outgoing (what it refers to, e.g. "point (a) of Article 6(1)"
resolved to article-6-1-a; references to other acts are marked external) and incoming (the
provisions that refer to it or to its paragraphs). `id` is a section id, chunk id or citation, as
for get_section; pass `source` when several documents have that id. Use it to find exceptions,
conditions and related obligations, then read them with get_section.""",
    "list_documents": """\
List the indexed documents: file name, title, format and number of passages. Use it to learn what
the corpus holds and to get the file names that the `source` argument of search, get_section and
references accepts.""",
}

DESCRIPTIONS = {name: _unwrap(text) for name, text in DESCRIPTIONS.items()}

TITLES = {
    "search": "Search the documents",
    "get_section": "Read a section",
    "define": "Look up a defined term",
    "references": "Cross-references of a section",
    "list_documents": "List the indexed documents",
}

READ_ONLY = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)

# Argument types shared by the MCP tools and the framework helpers in hierdoc.agents.
Query = Annotated[
    str,
    Field(
        description='Words, a "quoted phrase", an acronym or a citation such as '
        '"Article 17(3)(b)" or "sec. 203(a)(1)".'
    ),
]
TopK = Annotated[
    int,
    Field(
        description=f"How many passages to return, 1 to {MAX_TOP_K}.",
        json_schema_extra={"minimum": 1, "maximum": MAX_TOP_K},
    ),
]
Mode = Annotated[
    SearchModeName,
    Field(description="hybrid (default), semantic, keyword, or exact (citations and phrases)."),
]
SourceFilter = Annotated[
    str | None,
    Field(description="Only this document: a file name as listed by list_documents."),
]
SectionFilter = Annotated[
    str | None,
    Field(description='Only passages under this section id, e.g. "chapter-3" or "article-17".'),
]
Identifier = Annotated[
    str,
    Field(
        description='A section id ("article-17-3-b"), a chunk id from search results, or a '
        'citation ("Art. 17(3)(b)").'
    ),
]
SourceChoice = Annotated[
    str | None,
    Field(description="The document, when several have this id: a file name from list_documents."),
]
Term = Annotated[str, Field(description='The term or acronym, e.g. "personal data" or "EACA".')]


# -- structured output (the JSON shapes of the CLI's --json, plus a few notes) --------


class DefinitionOut(BaseModel):
    term: str
    definition: str
    source: str
    section_id: str
    chunk_id: str
    truncated: bool = False


class CrossRefOut(BaseModel):
    text: str
    target_section_id: str | None
    resolved: bool
    external: bool


class CitationOut(BaseModel):
    text: str
    section_id: str | None
    resolved: bool


class ResultOut(BaseModel):
    chunk_id: str
    source: str
    title: str
    parent_chain: list[str]
    section_id: str
    heading: str
    chunk_type: str
    content: str
    score: float
    scores: dict[str, float | None]
    ranks: dict[str, int | None]
    definitions: list[DefinitionOut]
    cross_references: list[CrossRefOut]


class SearchOutput(BaseModel):
    query: str
    mode: str
    no_match: bool
    notes: list[str]
    citations: list[CitationOut]
    results: list[ResultOut]


class ChunkBrief(BaseModel):
    chunk_id: str
    section_id: str
    heading: str


class SectionOut(BaseModel):
    section_id: str
    heading: str
    kind: str
    text: str
    parent_id: str | None


class ChildOut(BaseModel):
    section_id: str
    heading: str


class SectionOutput(BaseModel):
    chunk_id: str
    source: str
    title: str
    parent_chain: list[str]
    section_id: str
    section_path: list[str]
    heading: str
    chunk_type: str
    content: str
    context: str
    token_count: int
    previous: ChunkBrief | None
    next: ChunkBrief | None
    section: SectionOut | None
    children: list[ChildOut]
    section_chain: list[str] = Field(
        description="Parent chain of the requested section (deeper than the passage's own "
        "parent_chain when a paragraph or point was asked for)."
    )
    notes: list[str]
    other_sources: list[str] = Field(description="Other documents that have the same section id.")


class DefineOutput(BaseModel):
    term: str
    conflict: bool
    definitions: list[DefinitionOut]


class IncomingRefOut(BaseModel):
    text: str
    from_section_id: str
    from_chunk_id: str
    source: str
    target_section_id: str | None


class ReferencesOutput(BaseModel):
    section_id: str
    source: str
    outgoing: list[CrossRefOut]
    incoming: list[IncomingRefOut]
    notes: list[str]


class DocumentOut(BaseModel):
    source: str
    name: str
    title: str
    format: str
    chars: int
    chunks: int


class DocumentsOutput(BaseModel):
    documents: list[DocumentOut]
    total_chunks: int


# -- the tools as plain functions -----------------------------------------------------


class ToolInputError(InputError):
    """A tool call that cannot be answered as asked; the message says how to fix it."""


@dataclass
class ToolOutput:
    """What a tool returns: JSON-ready structured content and the text a model reads."""

    structured: dict[str, Any]
    text: str


def _check(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """Validate ``data`` against the advertised output schema and return it as JSON data."""
    return model.model_validate(data).model_dump(mode="json")


def _names(index: Index) -> dict[str, str]:
    """Display name of each document: its file name, or the full source when two share one."""
    sources = [d.source for d in index.store.documents()]
    counts = Counter(Path(s).name for s in sources)
    return {s: Path(s).name if counts[Path(s).name] == 1 else s for s in sources}


def _resolve_sources(index: Index, source: str | None) -> list[str] | None:
    """The stored sources a ``source`` argument names (full source, file name or path suffix).

    Only compared with what the index holds: the argument is never opened or resolved on disk.
    """
    if source is None or not source.strip():
        return None
    wanted = source.strip()
    known = [d.source for d in index.store.documents()]
    found = [k for k in known if k == wanted or Path(k).name == wanted or k.endswith("/" + wanted)]
    if not found:
        listed = ", ".join(sorted(_names(index).values())) or "none"
        raise ToolInputError(
            f"no indexed document matches source {wanted!r}; the documents are: {listed}"
        )
    return found


def run_search(
    index: Index,
    query: str,
    top_k: int | None = None,
    mode: str | None = None,
    source: str | None = None,
    section: str | None = None,
) -> ToolOutput:
    """The ``search`` tool: validated arguments, then :meth:`Index.search`."""
    text = (query or "").strip()
    if not text:
        raise ToolInputError(
            'the query is empty: give words, a "quoted phrase" or a citation such as '
            '"Article 17(3)(b)"'
        )
    if len(text) > MAX_QUERY_CHARS:
        raise ToolInputError(
            f"the query is too long ({len(text)} characters, at most {MAX_QUERY_CHARS})"
        )
    if top_k is not None and not 1 <= top_k <= MAX_TOP_K:
        raise ToolInputError(f"top_k must be between 1 and {MAX_TOP_K}, got {top_k}")
    sources = _resolve_sources(index, source)
    section_id = _check_section(index, section, sources)
    try:
        response = index.search(text, top_k=top_k, mode=mode, source=sources, section=section_id)
    except InputError as error:
        raise ToolInputError(str(error)) from None
    structured = _check(SearchOutput, response.to_dict())
    return ToolOutput(structured, _render_search(structured, _names(index)))


def _check_section(index: Index, section: str | None, sources: list[str] | None) -> str | None:
    if section is None or not section.strip():
        return None
    section_id = section.strip().lower()
    records = index.store.sections(section_id)
    if sources is not None:
        records = [r for r in records if r.source in sources]
    if not records:
        where = " in that document" if sources else ""
        raise ToolInputError(
            f"no section with id {section_id!r}{where}: use an id from search results, "
            'such as "chapter-3" or "article-17"'
        )
    return section_id


@dataclass
class _Target:
    """What an ``id`` argument resolved to, in one document."""

    source: str
    section_id: str
    chunk_id: str | None = None
    notes: list[str] = field(default_factory=list)
    other_sources: list[str] = field(default_factory=list)


def _candidate_ids(identifier: str) -> list[str]:
    """Section ids to try for an identifier: itself, then a citation's ids, most specific first."""
    candidates = [identifier.lower()]
    for citation in find_citations(identifier)[:1]:
        candidates += citation.label.candidate_ids()
    return list(dict.fromkeys(candidates))


def _resolve_target(index: Index, identifier: str, source: str | None) -> _Target:
    text = (identifier or "").strip()
    if not text:
        raise ToolInputError(
            'the id is empty: give a section id such as "article-17-3-b", a chunk id from '
            'search results, or a citation such as "Article 17(3)(b)"'
        )
    if len(text) > MAX_ID_CHARS:
        raise ToolInputError(f"the id is too long (at most {MAX_ID_CHARS} characters)")
    sources = _resolve_sources(index, source)
    stored = index.store.get_chunks([text]).get(text)
    if stored is not None:
        chunk = stored.chunk
        if sources is not None and chunk.source not in sources:
            raise ToolInputError(f"chunk {text!r} is not in document {source!r}")
        return _Target(chunk.source, chunk.section_id, chunk_id=text)
    for candidate in _candidate_ids(text):
        records = index.store.sections(candidate)
        if sources is not None:
            records = [r for r in records if r.source in sources]
        if records:
            return _section_target(index, text, candidate, records)
    where = f" in document {source!r}" if sources else ""
    raise ToolInputError(
        f"no section or chunk with id {text!r}{where}: use a section id from search results "
        '(such as "article-17-3-b"), a chunk id, or a citation such as "Article 17(3)(b)"'
    )


def _section_target(
    index: Index, asked: str, section_id: str, records: list[SectionRecord]
) -> _Target:
    names = _names(index)
    target = _Target(records[0].source, section_id)
    if section_id != asked.lower():
        target.notes.append(f"{asked!r} resolved to section {section_id}")
        wanted = _candidate_ids(asked)[1:2]
        if wanted and wanted[0] != section_id:
            target.notes.append(f"section {wanted[0]} is not in the index")
    if len(records) > 1:
        target.other_sources = [r.source for r in records[1:]]
        others = ", ".join(names.get(s, s) for s in target.other_sources)
        target.notes.append(
            f"{len(records)} documents have a section {section_id}; this is the one in "
            f"{names.get(target.source, target.source)} (also in: {others}; pass source to choose)"
        )
    return target


def _section_record(index: Index, target: _Target) -> SectionRecord | None:
    records = [r for r in index.store.sections(target.section_id) if r.source == target.source]
    return records[0] if records else None


def _section_chain(index: Index, record: SectionRecord) -> list[str]:
    """Headings from the document's top section down to ``record``."""
    chain = [record.heading]
    parent, seen = record.parent_id, {record.section_id}
    while parent and parent not in seen:
        seen.add(parent)
        found = [r for r in index.store.sections(parent) if r.source == record.source]
        if not found:
            break
        chain.append(found[0].heading)
        parent = found[0].parent_id
    return chain[::-1]


def _view(index: Index, target: _Target) -> tuple[ChunkView, list[str]]:
    """The chunk view of a target, kept in the target's own document."""
    if target.chunk_id is not None:
        view = index.show(target.chunk_id)
        return view, list(view.chunk.chunk.parent_chain)
    record = _section_record(index, target)
    if record is None or record.chunk_id is None:
        raise ToolInputError(f"section {target.section_id!r} has no text in the index")
    base = index.show(record.chunk_id)
    children = index.store.children(record.source, record.section_id)
    view = ChunkView(base.chunk, base.previous, base.next, record, children)
    return view, _section_chain(index, record)


def run_get_section(index: Index, id: str, source: str | None = None) -> ToolOutput:
    """The ``get_section`` tool: a section or chunk with its parents, children and neighbours."""
    target = _resolve_target(index, id, source)
    view, chain = _view(index, target)
    data = view.to_dict()
    data.update(section_chain=chain, notes=target.notes, other_sources=target.other_sources)
    structured = _check(SectionOutput, data)
    return ToolOutput(structured, _render_section(structured, _names(index)))


def run_define(index: Index, term: str) -> ToolOutput:
    """The ``define`` tool: every definition of a term, with citations and conflicts flagged."""
    if not (term or "").strip(" \"'‘’“”"):
        raise ToolInputError('the term is empty: give a term such as "personal data"')
    if len(term) > MAX_TERM_CHARS:
        raise ToolInputError(f"the term is too long (at most {MAX_TERM_CHARS} characters)")
    lookup = index.define(term.strip())
    structured = _check(DefineOutput, lookup.to_dict())
    return ToolOutput(structured, _render_define(structured, _names(index)))


def run_references(index: Index, id: str, source: str | None = None) -> ToolOutput:
    """The ``references`` tool: outgoing and incoming cross-references, in one document."""
    target = _resolve_target(index, id, source)
    lookup = index.references(target.chunk_id or target.section_id)
    outgoing = [r for r in lookup.outgoing if r.source == target.source]
    if target.chunk_id is None:
        outgoing = _made_within(index, target, outgoing)
    incoming = [r for r in lookup.incoming if _target_source(r) == target.source]
    data = ReferenceLookup(lookup.section_id, outgoing, incoming).to_dict()
    data.update(source=target.source, notes=target.notes)
    structured = _check(ReferencesOutput, data)
    return ToolOutput(structured, _render_references(structured, _names(index)))


def _target_source(ref: CrossRef) -> str:
    return ref.target_source or ref.source


def _made_within(index: Index, target: _Target, refs: list[CrossRef]) -> list[CrossRef]:
    """For a paragraph or point, only the references made in it (not in its whole passage).

    Enumerated sub-section ids extend their parent's id (article-17-3-b is in article-17-3),
    which is what makes the prefix test sound; a section with its own passage keeps them all.
    """
    record = _section_record(index, target)
    holder = index.store.get_chunks([record.chunk_id]).get(record.chunk_id) if record else None
    if holder is None or not target.section_id.startswith(holder.chunk.section_id + "-"):
        return refs
    sid = target.section_id
    return [r for r in refs if r.section_id == sid or r.section_id.startswith(sid + "-")]


def run_list_documents(index: Index) -> ToolOutput:
    """The ``list_documents`` tool."""
    names = _names(index)
    documents = [
        {
            "source": d.source,
            "name": names[d.source],
            "title": d.title,
            "format": d.format,
            "chars": d.chars,
            "chunks": d.chunk_count,
        }
        for d in index.store.documents()
    ]
    data = {"documents": documents, "total_chunks": sum(d["chunks"] for d in documents)}
    structured = _check(DocumentsOutput, data)
    return ToolOutput(structured, _render_documents(structured))


# -- text renderings: compact, every passage cited ------------------------------------


def cite(names: dict[str, str], source: str, chain: list[str], section_id: str) -> str:
    """``file.md · Chapter III > Article 17 · [article-17]``: how every passage is cited."""
    where = " > ".join(chain)
    parts = [names.get(source, Path(source).name)] + ([where] if where else [])
    return " · ".join(parts + [f"[{section_id}]"])


def _clip(text: str, limit: int, hint: str = "") -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + f" … (cut{hint})"


def _render_search(data: dict[str, Any], names: dict[str, str]) -> str:
    results = data["results"]
    plural = "passage" if len(results) == 1 else "passages"
    lines = [f'{len(results)} {plural} for "{data["query"]}" ({data["mode"]} search).']
    lines += [f"note: {note}" for note in data["notes"]]
    if data["no_match"]:
        lines.append("no_match: nothing convincing was found; the documents may not cover this.")
    definitions: dict[tuple[str, str], dict[str, Any]] = {}
    for rank, result in enumerate(results, start=1):
        head = cite(names, result["source"], result["parent_chain"], result["section_id"])
        lines += ["", f"[{rank}] {head} · {result['chunk_type']} · score {result['score']:.3f}"]
        hint = f"; read it all with get_section {result['chunk_id']}"
        lines.append(_clip(result["content"], MAX_PASSAGE_CHARS, hint))
        refs = [_ref_text(r) for r in result["cross_references"]]
        if refs:
            lines.append("Refers to: " + "; ".join(refs))
        for d in result["definitions"]:
            definitions.setdefault((d["term"].casefold(), d["source"]), d)
    if definitions:
        lines += ["", "Defined terms in these passages:"]
        lines += [_definition_line(d, names) for d in definitions.values()]
    return "\n".join(lines)


def _ref_text(ref: dict[str, Any]) -> str:
    if ref["external"]:
        return f"{ref['text']} (another act)"
    return f"{ref['text']} → {ref['target_section_id'] or 'not in the index'}"


def _definition_line(definition: dict[str, Any], names: dict[str, str]) -> str:
    where = f"{names.get(definition['source'], Path(definition['source']).name)}"
    text = _clip(definition["definition"], DEFINITION_PREVIEW_CHARS)
    return f'- "{definition["term"]}" ({where} [{definition["section_id"]}]): {text}'


def _render_section(data: dict[str, Any], names: dict[str, str]) -> str:
    section = data.get("section")
    asked_id = section["section_id"] if section else data["section_id"]
    lines = [f"{cite(names, data['source'], data['section_chain'], asked_id)}"]
    lines += [f"note: {note}" for note in data["notes"]]
    if section and section["section_id"] != data["section_id"]:
        lines += ["", section["text"].strip(), "", f"It is part of [{data['section_id']}]:"]
    lines += ["", data["content"].strip(), f"(chunk {data['chunk_id']}, {data['chunk_type']})"]
    if data["children"]:
        children = ", ".join(f"{c['section_id']} ({c['heading']})" for c in data["children"])
        lines.append(f"Children: {children}")
    for label in ("previous", "next"):
        if data.get(label):
            brief = data[label]
            lines.append(
                f"{label.capitalize()}: [{brief['section_id']}] {brief['heading']} "
                f"(chunk {brief['chunk_id']})"
            )
    return "\n".join(lines)


def _render_define(data: dict[str, Any], names: dict[str, str]) -> str:
    definitions = data["definitions"]
    if not definitions:
        return f'"{data["term"]}" is not defined in the indexed documents.'
    lines = [f'{len(definitions)} definition(s) of "{data["term"]}":']
    if data["conflict"]:
        lines[0] += " the documents define it differently; say which one you rely on."
    for d in definitions:
        where = names.get(d["source"], Path(d["source"]).name)
        lines.append(f'- "{d["term"]}" ({where} [{d["section_id"]}]): {d["definition"].strip()}')
    return "\n".join(lines)


def _render_references(data: dict[str, Any], names: dict[str, str]) -> str:
    where = names.get(data["source"], Path(data["source"]).name)
    lines = [f"Cross-references of [{data['section_id']}] in {where}"]
    lines += [f"note: {note}" for note in data["notes"]]
    lines.append(f"Refers to ({len(data['outgoing'])}):")
    lines += [f"- {_ref_text(r)}" for r in data["outgoing"]] or ["- nothing"]
    lines.append(f"Referred to by ({len(data['incoming'])}):")
    lines += [
        f"- [{r['from_section_id']}] {names.get(r['source'], Path(r['source']).name)}: "
        f'"{r["text"]}" → {r["target_section_id"]}'
        for r in data["incoming"]
    ] or ["- nothing"]
    return "\n".join(lines)


def _render_documents(data: dict[str, Any]) -> str:
    documents = data["documents"]
    lines = [f"{len(documents)} document(s), {data['total_chunks']} passages:"]
    lines += [
        f"- {d['name']}: {d['title']} ({d['chunks']} passages, {d['format']})" for d in documents
    ]
    return "\n".join(lines)


# -- the MCP server -------------------------------------------------------------------


def _result(output: ToolOutput) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=output.text)], structuredContent=output.structured
    )


async def _call(index: Index | None, run: Callable[..., ToolOutput], *args: Any) -> CallToolResult:
    """Run a tool in a worker thread, so that the event loop keeps serving other calls."""
    if index is None:
        raise ToolInputError("no index is open")
    try:
        return _result(await anyio.to_thread.run_sync(run, index, *args))
    except ToolInputError:
        raise
    except Exception:
        logger.exception("tool %s failed", run.__name__)
        raise


def _describe(description: str, settings: Settings) -> str:
    if settings.description:
        return f"{description}\n\nThis index: {settings.description.strip()}"
    return description


def make_tools(index: Index | None, settings: Settings | None = None) -> list[Tool]:
    """The five tools over ``index`` (``None`` gives the schemas only, for export)."""
    settings = settings or (index.settings if index else Settings())
    default_top_k, default_mode = settings.top_k, settings.search_mode

    async def search(
        query: Query,
        top_k: TopK = default_top_k,
        mode: Mode = default_mode,
        source: SourceFilter = None,
        section: SectionFilter = None,
    ) -> Annotated[CallToolResult, SearchOutput]:
        return await _call(index, run_search, query, top_k, mode, source, section)

    async def get_section(
        id: Identifier, source: SourceChoice = None
    ) -> Annotated[CallToolResult, SectionOutput]:
        return await _call(index, run_get_section, id, source)

    async def define(term: Term) -> Annotated[CallToolResult, DefineOutput]:
        return await _call(index, run_define, term)

    async def references(
        id: Identifier, source: SourceChoice = None
    ) -> Annotated[CallToolResult, ReferencesOutput]:
        return await _call(index, run_references, id, source)

    async def list_documents() -> Annotated[CallToolResult, DocumentsOutput]:
        return await _call(index, run_list_documents)

    functions = [search, get_section, define, references, list_documents]
    return [
        Tool.from_function(
            fn,
            name=fn.__name__,
            title=TITLES[fn.__name__],
            description=_describe(DESCRIPTIONS[fn.__name__], settings),
            annotations=READ_ONLY,
            structured_output=True,
        )
        for fn in functions
    ]


RUNNERS: dict[str, Callable[..., ToolOutput]] = {
    "search": run_search,
    "get_section": run_get_section,
    "define": run_define,
    "references": run_references,
    "list_documents": run_list_documents,
}


def unknown_arguments_message(tool: Tool, arguments: dict[str, Any]) -> str | None:
    """Say which argument names a tool does not take (a misspelt one would be ignored)."""
    expected = set(tool.parameters.get("properties", {}))
    unknown = sorted(set(arguments) - expected)
    if not unknown:
        return None
    allowed = ", ".join(sorted(expected)) or "none"
    return f"unknown argument(s) {', '.join(unknown)}; the arguments are: {allowed}"


def describe_validation_error(error: ValidationError) -> str:
    """One short line per invalid argument: ``top_k: Input should be a valid integer (got 'x')``."""
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        if item["type"] == "missing":
            problems.append(f"{where}: required")
        else:
            problems.append(f"{where}: {item['msg']} (got {item.get('input')!r})")
    return "invalid arguments: " + "; ".join(problems)


class HierdocMCP(FastMCP):
    """FastMCP with argument checks that give a model a usable message.

    Unknown tools and unknown argument names are rejected (FastMCP would silently ignore a
    misspelt argument), and pydantic validation errors are shortened to one line per field.
    """

    def __init__(self, tools: list[Tool], **kwargs: Any) -> None:
        super().__init__(tools=tools, **kwargs)
        self._tools_by_name = {t.name: t for t in tools}

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        tool = self._tools_by_name.get(name)
        if tool is None:
            known = ", ".join(self._tools_by_name)
            raise ToolError(f"unknown tool {name!r}; the tools are: {known}")
        problem = unknown_arguments_message(tool, arguments)
        if problem:
            raise ToolError(f"Error executing tool {name}: {problem}")
        try:
            return await super().call_tool(name, arguments)
        except ToolError as error:
            if isinstance(error.__cause__, ValidationError):
                details = describe_validation_error(error.__cause__)
                raise ToolError(f"Error executing tool {name}: {details}") from None
            raise


def build_server(
    index: Index,
    settings: Settings | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "WARNING",
) -> HierdocMCP:
    """An MCP server over ``index``; ``host``/``port`` are used by the HTTP transport only."""
    settings = settings or index.settings
    instructions = INSTRUCTIONS
    if settings.description:
        instructions += f"\n\nThis index: {settings.description.strip()}"
    return HierdocMCP(
        make_tools(index, settings),
        name=settings.name or SERVER_NAME,
        instructions=instructions,
        host=host,
        port=port,
        log_level=log_level.upper(),  # type: ignore[arg-type]
    )


# -- running it -----------------------------------------------------------------------


def parse_http_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[::1]:PORT``, ``:PORT`` or ``PORT`` (loopback) to (host, port)."""
    value = text.strip()
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif value.count(":") == 1:
        host, port_text = value.split(":")
    elif value.isdigit():
        host, port_text = "", value
    else:
        raise ValueError(f"expected HOST:PORT (e.g. 127.0.0.1:8765), got {text!r}")
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise ValueError(f"expected a port between 1 and 65535 in {text!r}")
    return host or "127.0.0.1", int(port_text)


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, allow_remote: bool) -> None:
    """Refuse a non-loopback address unless asked explicitly: the server has no authentication."""
    if is_loopback(host) or allow_remote:
        return
    raise click.BadParameter(
        f"refusing to serve on {host}: it is not a loopback address, so anyone who can reach "
        "this machine could query the index (the MCP server has no authentication). "
        "Use 127.0.0.1, or add --allow-remote if that is what you want.",
        param_hint="'--http'",
    )


class _StateLike(Protocol):
    """The CLI group's state (``hierdoc.cli._State``): group options and the settings."""

    index_option: str | None
    config: Path | None
    tool: str | None

    def settings(self, **overrides: Any) -> Settings: ...


def open_for_serving(state: _StateLike) -> Index:
    """Open an existing, non-empty index; never create one (a typo must not serve nothing)."""
    settings = state.settings()
    directory = settings.index_dir(state.index_option)
    if not directory.is_dir():
        raise click.ClickException(
            f"no index at {directory}: build one first with: hierdoc --index {directory} "
            "ingest PATH (or pass --index, --config)"
        )
    index = Index.open(directory, settings)
    if not index.store.documents():
        index.close()
        raise click.ClickException(
            f"the index at {directory} holds no documents: run hierdoc ingest first"
        )
    return index


def warm_up(index: Index) -> None:
    """Load the embedding model before serving, with any stray output sent to stderr.

    Stdout is the MCP channel on stdio; loading first also makes the first search fast. A
    missing model is not fatal: keyword and exact searches still work, and a semantic search
    says what to install.
    """
    with contextlib.redirect_stdout(sys.stderr):
        try:
            index.embedder().embed_query("warm up")
        except Exception as error:  # noqa: BLE001 - reported, and the server still starts
            click.echo(f"warning: semantic search unavailable: {error}", err=True)


def serve_index(
    index: Index,
    http: tuple[str, int] | None = None,
    log_level: str = "WARNING",
) -> None:
    """Serve until the client disconnects (stdio) or the process is interrupted (HTTP)."""
    serving = f"hierdoc: serving {index.directory.resolve()} "
    serving += f"({len(index.store.documents())} documents)"
    if http is None:
        server = build_server(index, log_level=log_level)
        click.echo(f"{serving} on stdio", err=True)
        anyio.run(server.run_stdio_async)
        return
    host, port = http
    server = build_server(index, host=host, port=port, log_level=log_level)
    logging.getLogger("mcp.server.streamable_http").addFilter(_quiet_disconnects)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"{serving} at http://{shown}:{port}/mcp", err=True)
    anyio.run(server.run_streamable_http_async)


def _quiet_disconnects(record: logging.LogRecord) -> bool:
    """Drop the traceback mcp 1.x logs as an error when an HTTP client simply disconnects."""
    error = record.exc_info[1] if record.exc_info else None
    return not isinstance(error, anyio.ClosedResourceError)


def _serve(state: _StateLike, http: str | None, allow_remote: bool, log_level: str) -> None:
    address = None
    if http is not None:
        try:
            address = parse_http_address(http)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="'--http'") from None
        check_bind(address[0], allow_remote)
        if not is_loopback(address[0]):
            click.echo(
                f"warning: serving on {address[0]} without authentication (--allow-remote)",
                err=True,
            )
    index = open_for_serving(state)
    try:
        warm_up(index)
        serve_index(index, address, log_level)
    except KeyboardInterrupt:
        pass
    finally:
        index.close()


def _setter(attribute: str, convert: Callable[[str], Any] = str) -> Callable[..., Any]:
    def callback(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
        if value is not None:
            setattr(ctx.obj, attribute, convert(value))

    return callback


_F = TypeVar("_F", bound=Callable[..., Any])


def index_options(command: _F) -> _F:
    """``--index``, ``--config`` and ``--tool`` after the subcommand too.

    ``hierdoc serve --config agent.yaml --tool NAME`` then works as well as
    ``hierdoc --config agent.yaml --tool NAME serve``; given after the subcommand, they
    override the group's. They write into the group's state object (``ctx.obj``), so any
    command using ``state.open()`` or ``state.settings()`` can take this decorator.
    """
    options = [
        click.option(
            "--index",
            expose_value=False,
            callback=_setter("index_option"),
            help="Index directory [default: ./.hierdoc].",
        ),
        click.option(
            "--config",
            type=click.Path(dir_okay=False),
            expose_value=False,
            callback=_setter("config", Path),
            help="YAML config or HoloDeck agent file.",
        ),
        click.option(
            "--tool",
            expose_value=False,
            callback=_setter("tool"),
            help="The hierarchical_document tool to use from an agent file.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _serve_options(command: _F) -> _F:
    options = [
        click.option(
            "--http",
            metavar="HOST:PORT",
            help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio "
            "(e.g. 127.0.0.1:8765).",
        ),
        click.option(
            "--allow-remote",
            is_flag=True,
            help="Allow --http on a non-loopback address (the server has no authentication).",
        ),
        click.option(
            "--log-level",
            type=click.Choice(["debug", "info", "warning", "error"]),
            default="warning",
            show_default=True,
            help="Server log level (on stderr).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.command("serve")
@index_options
@_serve_options
@click.pass_obj
def serve(state: _StateLike, http: str | None, allow_remote: bool, log_level: str) -> None:
    """Serve the index to agents over MCP (stdio by default, or streamable HTTP).

    Tools: search, get_section, define, references, list_documents; all read-only.
    """
    _serve(state, http, allow_remote, log_level)


@dataclass
class _StandaloneState:
    """The state ``hierdoc.cli`` keeps for its group options, for ``python -m`` use."""

    index_option: str | None = None
    config: Path | None = None
    tool: str | None = None

    def settings(self, **overrides: Any) -> Settings:
        return load_settings(self.config, self.tool, **overrides)


@click.command("hierdoc-mcp", context_settings={"help_option_names": ["-h", "--help"]})
@index_options
@_serve_options
@click.pass_obj
def _standalone(state: _StateLike, http: str | None, allow_remote: bool, log_level: str) -> None:
    """Serve an index over MCP: the same as ``hierdoc [--index DIR] serve``."""
    _serve(state, http, allow_remote, log_level)


def main(argv: list[str] | None = None) -> None:
    """``python -m hierdoc.mcp_server``: errors as one line on stderr and a non-zero exit."""
    warnings.simplefilter("ignore")
    warnings.filterwarnings("always", message="config field")
    warnings.showwarning = lambda message, *args, **kwargs: click.echo(
        f"warning: {message}", err=True
    )
    state = _StandaloneState(index_option=os.environ.get("HIERDOC_INDEX") or None)
    try:
        _standalone.main(args=argv, prog_name="python -m hierdoc.mcp_server", obj=state)
    except Exception as error:  # noqa: BLE001 - one readable line, as the hierdoc CLI does
        click.echo(f"error: {error}", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()


__all__ = [
    "DESCRIPTIONS",
    "INSTRUCTIONS",
    "TOOL_NAMES",
    "HierdocMCP",
    "RUNNERS",
    "ToolInputError",
    "ToolOutput",
    "build_server",
    "index_options",
    "make_tools",
    "run_define",
    "run_get_section",
    "run_list_documents",
    "run_references",
    "run_search",
    "serve",
]
