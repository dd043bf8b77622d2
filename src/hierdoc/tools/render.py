"""The tools' results as compact text for a model (and a person), every passage cited.

Many MCP clients show the model only the text, so each passage names its document
(file name) and section id. The functions take the JSON data of
:mod:`hierdoc.tools.catalogue`'s result shapes and the display name of each source.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..models import LOOKED_UP
from ..search.explain import explain_lines

MAX_PASSAGE_CHARS = 4000
DEFINITION_PREVIEW_CHARS = 240


def display_names(sources: Iterable[str]) -> dict[str, str]:
    """Display name of each document: its file name, or the full source when two share one."""
    sources = list(sources)
    counts = Counter(Path(s).name for s in sources)
    return {s: Path(s).name if counts[Path(s).name] == 1 else s for s in sources}


def _name(names: Mapping[str, str], source: str) -> str:
    return names.get(source, Path(source).name)


def cite(names: Mapping[str, str], source: str, chain: list[str], section_id: str) -> str:
    """``file.md · Chapter III > Article 17 · [article-17]``: how every passage is cited."""
    where = " > ".join(chain)
    parts = [_name(names, source)] + ([where] if where else [])
    return " · ".join(parts + [f"[{section_id}]"])


def _clip(text: str, limit: int, hint: str = "") -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + f" … (cut{hint})"


def render_search(data: dict[str, Any], names: Mapping[str, str]) -> str:
    """Ranked passages with their citations, then the defined terms they use."""
    results = data["results"]
    plural = "passage" if len(results) == 1 else "passages"
    lines = [f'{len(results)} {plural} for "{data["query"]}" ({data["mode"]} search).']
    lines += [f"note: {note}" for note in data["notes"]]
    if data["no_match"]:
        lines.append("no_match: nothing convincing was found; the documents may not cover this.")
    definitions: dict[tuple[str, str], dict[str, Any]] = {}
    for rank, result in enumerate(results, start=1):
        head = cite(names, result["source"], result["parent_chain"], result["section_id"])
        head += _pages(result)
        lines += ["", f"[{rank}] {head} · {result['chunk_type']} · score {result['score']:.3f}"]
        if result.get("pinned"):
            lines[-1] += f" · pinned: {result['pin']} (fusion {result['fusion_score']:.3f})"
        lines.append(_passage_text(result))
        refs = [_ref_text(r) for r in result["cross_references"]]
        if refs:
            lines.append("Refers to: " + "; ".join(refs))
        for d in result["definitions"]:
            definitions.setdefault((d["term"].casefold(), d["source"]), d)
    if definitions:
        lines += ["", "Defined terms in these passages:"]
        lines += [_definition_line(d, names) for d in definitions.values()]
    if data.get("explain"):
        lines += ["", "How these ranked:", *explain_lines(data["explain"])]
    return "\n".join(lines)


def _pages(result: dict[str, Any]) -> str:
    """`` · p. 4`` or `` · pp. 4-5`` for a passage of a document with pages, else nothing."""
    first, last = result.get("page_start"), result.get("page_end")
    if first is None:
        return ""
    return f" · p. {first}" if last in (None, first) else f" · pp. {first}-{last}"


def _passage_text(result: dict[str, Any]) -> str:
    """The result's passages in reading order, "…" where text is left out, saying where the
    rest is; the chunk when it has none."""
    hint = f"; read it all with get_section {result['chunk_id']}"
    passage = result.get("passage")
    passages = sorted(result.get("passages") or ([passage] if passage else []), key=_start)
    content = result["content"]
    if not passages or [(p["start"], p["end"]) for p in passages] == [(0, len(content))]:
        return _clip(content, MAX_PASSAGE_CHARS, hint)
    text, cursor = "", 0
    for part in passages:
        text += "… " if content[cursor : part["start"]].strip() else ""
        text += _clip(part["text"], MAX_PASSAGE_CHARS, hint) + " "
        cursor = part["end"]
    text += "…" if content[cursor:].strip() else ""
    what = "the best passage" if len(passages) == 1 else f"{len(passages)} passages"
    return text.rstrip() + f"\n({what} of {len(content):,} characters{hint})"


def _start(passage: dict[str, Any]) -> int:
    return int(passage["start"])


def _ref_text(ref: dict[str, Any]) -> str:
    if ref["external"]:
        return f"{ref['text']} (another act)"
    return f"{ref['text']} → {ref['target_section_id'] or 'not in the index'}"


def _definition_line(definition: dict[str, Any], names: Mapping[str, str]) -> str:
    where = _name(names, definition["source"])
    text = _clip(definition["definition"], DEFINITION_PREVIEW_CHARS)
    return f'- "{definition["term"]}" ({where} [{definition["section_id"]}]): {text}'


def render_section(data: dict[str, Any], names: Mapping[str, str]) -> str:
    """The asked section, the passage holding it, its children and neighbours."""
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


def render_define(data: dict[str, Any], names: Mapping[str, str]) -> str:
    """Every definition with its citation; a conflict is said first."""
    definitions = data["definitions"]
    if not definitions:
        return f'"{data["term"]}" is not defined in the indexed documents.'
    lines = [f'{len(definitions)} definition(s) of "{data["term"]}":']
    if data["conflict"]:
        lines[0] += " the documents define it differently; say which one you rely on."
    for d in definitions:
        where = _name(names, d["source"])
        found = ", from its sentence" if d.get("style") == LOOKED_UP else ""
        lines.append(
            f'- "{d["term"]}" ({where} [{d["section_id"]}]{found}): {d["definition"].strip()}'
        )
    return "\n".join(lines)


def render_references(data: dict[str, Any], names: Mapping[str, str]) -> str:
    """Outgoing, then incoming cross-references of one section."""
    lines = [f"Cross-references of [{data['section_id']}] in {_name(names, data['source'])}"]
    lines += [f"note: {note}" for note in data["notes"]]
    lines.append(f"Refers to ({len(data['outgoing'])}):")
    lines += [f"- {_ref_text(r)}" for r in data["outgoing"]] or ["- nothing"]
    lines.append(f"Referred to by ({len(data['incoming'])}):")
    lines += [
        f"- [{r['from_section_id']}] {_name(names, r['source'])}: "
        f'"{r["text"]}" → {r["target_section_id"]}'
        for r in data["incoming"]
    ] or ["- nothing"]
    return "\n".join(lines)


def render_documents(data: dict[str, Any]) -> str:
    """One line per document: name, title, passages and format."""
    documents = data["documents"]
    total = data["total_documents"]
    lines = [f"{total} document(s), {data['total_chunks']} passages:"]
    if total > len(documents):
        lines[0] = (
            f"{total:,} documents, {data['total_chunks']:,} passages; the first "
            f"{len(documents)} by name (narrow a search with `where` or `source`):"
        )
    lines += [
        f"- {d['name']}: {d['title']} ({d['chunks']} passages, {d['format']})" for d in documents
    ]
    return "\n".join(lines)
