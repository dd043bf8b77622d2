"""The index commands: ``ingest``, ``search``, ``show``, ``define``, ``refs`` and ``stats``.

Each parses its options, calls :class:`hierdoc.api.Index` and prints the result as text
or ``--json``; errors are left to :func:`hierdoc.cli.main`. ``search``, ``show``,
``define`` and ``refs`` exit with :data:`NOTHING_FOUND` when they find nothing (their
JSON says ``"no_match": true``), as grep does. The API is imported in the commands'
bodies, so that ``--help`` loads none of it.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from typing import TYPE_CHECKING, Any, NoReturn

import click

from ..errors import NotFoundError
from ..models import LOOKED_UP, SEARCH_MODES, SearchResponse
from . import export
from .ingest_progress import SavedCounter, progress_printer
from .state import State, index_options

if TYPE_CHECKING:
    from ..api import Index
    from ..pipeline.contextualize import ContextProgress

NOTHING_FOUND = 1
"""The exit status when a search or lookup finds nothing (errors exit with 2)."""
SOURCE_HELP = "The document to look in, when several have this id (as for search --source)."


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def _context_progress_printer() -> Any:
    """One line on stderr while an LLM writes contexts: done/total, ETA, tokens, concurrency."""

    def on_progress(p: ContextProgress) -> None:
        eta = f"{p.eta:.0f}s" if p.eta is not None else "?"
        tokens = p.input_tokens + p.output_tokens + p.cache_read_tokens + p.cache_creation_tokens
        click.echo(
            f"\rcontexts {p.done}/{p.total}  ETA {eta}  {tokens:,} tokens  "
            f"concurrency {p.concurrency}  failed {p.failed}",
            err=True,
            nl=p.done == p.total,
        )

    return on_progress


@click.command()
@index_options
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--force", is_flag=True, help="Rebuild the index from scratch.")
@click.option("--max-chunk-tokens", type=int, help="Chunk size limit in tokens.")
@click.option("--chunk-overlap", type=int, help="Tokens repeated between chunks of a section.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--wait", is_flag=True, help="Wait for another process writing this index.")
@click.pass_obj
def ingest(
    state: State,
    paths: tuple[str, ...],
    force: bool,
    max_chunk_tokens: int | None,
    chunk_overlap: int | None,
    as_json: bool,
    quiet: bool,
    wait: bool,
) -> None:
    """Index files and folders (PDF, DOCX, HTML, PPTX, XLSX, Markdown, text).

    One process writes an index at a time: another ingest fails at once naming it,
    or with --wait waits for it. Searches are never blocked.
    """
    from ..pipeline.ingest import IngestStopped
    from .ingest_checks import check_paths, check_report

    overrides = {"max_chunk_tokens": max_chunk_tokens, "chunk_overlap": chunk_overlap}
    check_paths(state, list(paths) or state.settings(**overrides).sources)
    opened = state.open_writer(rebuild=force, wait=wait, **overrides)
    with opened as index:
        progress = None if quiet or as_json else progress_printer()
        if not (quiet or as_json):
            index.context_progress = _context_progress_printer()
        saved = SavedCounter(progress)
        try:
            report = index.ingest(list(paths) or None, force=force, progress=saved)
        except KeyboardInterrupt:
            click.echo(f"\n{saved.interrupted(rebuilding=force)}", err=True)
            raise SystemExit(130) from None
        except IngestStopped as stopped:
            if as_json:
                _echo_json({**stopped.report.to_dict(), "stopped": str(stopped)})
            raise
    if as_json:
        _echo_json(report.to_dict())
    else:
        click.echo(
            f"{len(report.added)} added, {len(report.updated)} updated, "
            f"{len(report.unchanged)} unchanged, {len(report.removed)} removed; "
            f"{report.chunks_written} chunks written ({report.chunks_reused} chunks re-used, "
            f"{report.chunks_embedded} embedded) in {report.seconds:.1f}s"
        )
        for problem in report.problems:
            click.echo(f"skipped {problem.source}: {problem.reason}", err=True)
        for warning in report.warnings:
            click.echo(f"warning {warning.source}: {warning.reason}", err=True)
    check_report(report)


def _relative(source: str) -> str:
    """A source as the user would name it: relative to the current folder when it is under
    it or one level up, otherwise absolute (a file reached through a symlink is stored at
    its real place, which can be far from here: no ``../../../`` chains)."""
    try:
        relative = os.path.relpath(source)
    except ValueError:
        return source
    return source if relative.startswith(os.path.join(os.pardir, os.pardir)) else relative


def _print_response(response: SearchResponse, fmt: str) -> None:
    """The results in ``fmt`` (see cli/export.py); notes go to stderr where the format has
    no place for them (text, csv)."""
    if fmt in ("text", "csv"):
        for note in response.notes:
            click.secho(f"note: {note}", fg="yellow", err=True)
    names = {r.source: _relative(r.source) for r in response.results}
    marks = export.terminal_marks()
    click.echo(export.render(response, fmt, names, marks), nl=fmt != "csv", color=True)
    if response.explain is not None and fmt != "json":
        from ..search.explain import explain_lines

        click.echo("\n".join(explain_lines(response.explain)), err=fmt == "csv")


def _say_if_name_keys_are_old(index: Index) -> None:
    """A note on stderr when the index holds document-name keys of another hierdoc version:
    until a writer stores them anew, each search process names documents by reading every
    document's record (0.35 s at 4,348 documents, 3.5 s at 43,600)."""
    from ..store.base import Capability

    store = index.store
    if Capability.NAME_KEYS not in store.capabilities and store.document_count():
        click.echo(
            "note: this index was written by an older hierdoc; a search reads every "
            "document's record to find the documents a query names, until "
            "`hierdoc ingest` of its folder updates the index",
            err=True,
        )


@click.command()
@index_options
@click.argument("query")
@click.option(
    "--mode",
    type=click.Choice(SEARCH_MODES),
    help="Retrieval: all fused (hybrid), embeddings, BM25, or exact phrases [default: hybrid].",
)
@click.option("--top-k", "-k", type=int, help="Number of results (1-100) [default: 10].")
@click.option("--min-score", type=float, help="Drop results scoring below this.")
@click.option("--source", multiple=True, help="Only search this document (repeatable).")
@click.option("--section", help="Only search under this section id (e.g. chapter-3).")
@click.option(
    "--type",
    "chunk_types",
    multiple=True,
    type=click.Choice(["definition", "requirement", "content", "header"]),
    help="Only chunks of this type (repeatable).",
)
@click.option(
    "--where",
    multiple=True,
    metavar="KEY=VALUE",
    help="Only documents whose metadata match (type=contract, tags=x; repeatable: "
    "different keys must all match, one key's values any).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(export.FORMATS),
    default="text",
    help="text (matches marked), markdown, csv or json; each cites file, section id, pages.",
)
@click.option(
    "--passages",
    "passage_results",
    is_flag=True,
    help="Rank passages, not chunks: each result one passage, with its chunk and section.",
)
@click.option("--json", "as_json", is_flag=True, help="Print results as JSON (--format json).")
@click.option(
    "--explain",
    is_flag=True,
    help="Also show how the results ranked: how the query was read, each modality's ranks "
    'and scores, the fusion and pins (after the results; "explain" in JSON).',
)
@click.pass_obj
def search(
    state: State,
    query: str,
    mode: str | None,
    top_k: int | None,
    min_score: float | None,
    source: tuple[str, ...],
    section: str | None,
    chunk_types: tuple[str, ...],
    where: tuple[str, ...],
    fmt: str,
    passage_results: bool,
    as_json: bool,
    explain: bool,
) -> None:
    """Search the index.

    Citations in the query ("Article 17(3)(b)", "sec. 203(a)(1)", "§ 4.2") go
    straight to that section; "quoted phrases" must appear as written.
    The local model embeds the query in numpy, without loading torch
    (HIERDOC_QUERY_EMBEDDER=torch: with torch, as ingest does).
    Exits with 1 when nothing matches well ("no_match": true in JSON).
    """
    from ..search.where import parse_where

    with state.open_reader() as index:
        _say_if_name_keys_are_old(index)
        response = index.search(
            query,
            top_k=top_k,
            mode=mode,
            min_score=min_score,
            source=list(source) or None,
            section=section,
            chunk_type=list(chunk_types) or None,
            where=parse_where(where),
            passage_results=passage_results or None,
            explain=explain,
        )
    _print_response(response, "json" if as_json else fmt)
    if response.no_match:
        sys.exit(NOTHING_FOUND)


def _nothing_found(as_json: bool, data: dict[str, Any], message: str) -> NoReturn:
    """Say that nothing was found (``data`` with ``no_match`` in JSON, else ``message`` on
    stderr) and exit with :data:`NOTHING_FOUND`."""
    if as_json:
        _echo_json({**data, "no_match": True, "message": message})
    else:
        click.secho(message, fg="yellow", err=True)
    sys.exit(NOTHING_FOUND)


def _home(index: Index, source: str | None) -> str | None:
    """The stored document ``source`` names (None: any); one that names no document, or
    several, is an error."""
    return None if source is None else index.one_source(source)


def _also_in(others: list[str], more: int, shown: str) -> None:
    """The other documents that have what was shown, and how to choose one."""
    if not others:
        return
    names = ", ".join(_relative(o) for o in others) + (f" and {more:,} more" if more else "")
    click.secho(f"also in: {names} (this is {_relative(shown)}; choose with --source)", fg="yellow")


@click.command()
@index_options
@click.argument("chunk_id")
@click.option("--source", help=SOURCE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_obj
def show(state: State, chunk_id: str, source: str | None, as_json: bool) -> None:
    """Show a chunk, or a section by id or citation ("Art. 17(3)(b)", "paragraph (k) of
    the 737 MAX AD"): the chunk holding it with the section marked, its children and the
    neighbouring chunks. A section id that several documents have is shown in the first,
    the others named (choose with --source). Exits with 1 when there is no such id."""
    with state.open_reader() as index:
        home = _home(index, source)
        try:
            view = index.show(chunk_id, home).to_dict()
        except NotFoundError as missing:
            _nothing_found(as_json, {"id": chunk_id, "source": source}, str(missing))
    if as_json:
        _echo_json({**view, "no_match": False})
        return
    for note in view["notes"]:
        click.secho(f"note: {note}", fg="yellow", err=True)
    click.secho(" > ".join(view["parent_chain"]), bold=True)
    click.echo(f"{_relative(view['source'])}  [{view['section_id']}]  {view['chunk_id']}")
    _also_in(view["other_sources"], view["more_sources"], view["source"])
    click.echo()
    content, span = view["content"], view["section_span"] or []
    marks = export.terminal_marks()
    click.echo(export.rendered(content, [tuple(span)] if span else [], marks))
    click.echo()
    if view["section"] and view["section"]["section_id"] != view["section_id"]:
        click.echo(f"section: {view['section']['section_id']}  ({view['section']['heading']})")
    if view["children"]:
        click.echo(f"children ({len(view['children'])}):")
        for child in view["children"]:
            click.echo(f"   {child['section_id']}  {child['heading']}")
    for label in ("previous", "next"):
        if view[label]:
            click.echo(f"{label}: {view[label]['chunk_id']}  ({view[label]['heading']})")


@click.command()
@index_options
@click.argument("term")
@click.option("--source", help="Only definitions in this document (as for search --source).")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_obj
def define(state: State, term: str, source: str | None, as_json: bool) -> None:
    """Definitions of a term (or an acronym) in the corpus, with where they are: every
    document's definition, each named. Exits with 1 when the term is not defined."""
    with state.open_reader() as index:
        lookup = index.define(term, _home(index, source))
    data = {**lookup.to_dict(), "no_match": not lookup.definitions}
    if not lookup.definitions:
        where = f" in {source}" if source else " in the index"
        _nothing_found(as_json, data, f"'{term}' is not defined{where}.")
    if as_json:
        _echo_json(data)
        return
    sources = lookup.sources
    if len(sources) > 1:
        names = ", ".join(_relative(s) for s in sources)
        click.secho(f"'{term}' is defined in {len(sources)} documents: {names}", fg="yellow")
    if lookup.conflict:
        click.secho(f"'{term}' is defined differently in different documents.", fg="yellow")
    for definition in lookup.definitions:
        click.secho(f"{definition.term}", bold=True)
        found = "  (from its sentence)" if definition.style == LOOKED_UP else ""
        click.echo(f"   {_relative(definition.source)}  [{definition.section_id}]{found}")
        click.echo(textwrap.indent(textwrap.fill(definition.definition, 96), "   "))
        click.echo()


@click.command()
@index_options
@click.argument("identifier")
@click.option("--source", help=SOURCE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_obj
def refs(state: State, identifier: str, source: str | None, as_json: bool) -> None:
    """Cross-references from and to a section or chunk id, in one document: the first
    that has the id, the others named (choose with --source). Exits with 1 when there is
    no such id or it has no references."""
    with state.open_reader() as index:
        home = _home(index, source)
        try:
            found = index.references(identifier, home)
        except NotFoundError as missing:
            _nothing_found(as_json, {"id": identifier, "source": source}, str(missing))
    data = {**found.to_dict(), "no_match": not (found.outgoing or found.incoming)}
    if as_json:
        _echo_json(data)
    else:
        _print_refs(found)
    if data["no_match"]:
        sys.exit(NOTHING_FOUND)


def _print_refs(lookup: Any) -> None:
    click.secho(f"{lookup.section_id} in {_relative(lookup.source)} refers to:", bold=True)
    _also_in(lookup.other_sources, lookup.more_sources, lookup.source)
    for ref in lookup.outgoing:
        target = ref.target_section_id or ("another act" if ref.external else "not in the index")
        click.echo(f"   {ref.text}  ->  {target}")
    referrers = list(dict.fromkeys(f"{ref.section_id}: {ref.text}" for ref in lookup.incoming))
    click.secho(f"referred to by ({len(referrers)}):", bold=True)
    for line in referrers:
        click.echo(f"   {line}")


@click.command()
@index_options
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_obj
def stats(state: State, as_json: bool) -> None:
    """Documents, chunks, index size and models."""
    with state.open_reader() as index:
        data = index.stats().to_dict()
    if as_json:
        _echo_json(data)
        return
    click.echo(f"index:      {data['index']}")
    click.echo(f"documents:  {data['documents']}")
    for document in data["documents_list"]:
        click.echo(f"            {_relative(document['source'])}  ({document['chunks']} chunks)")
    click.echo(f"sections:   {data['sections']}")
    click.echo(f"chunks:     {data['chunks']} ({data['vectors']} vectors)")
    click.echo(f"size:       {data['index_bytes'] / 1e6:.1f} MB")
    click.echo(f"embeddings: {data['embedding_model']} ({data['dimension']} dimensions)")
    contexts = data.get("contexts", {})
    by_source = ", ".join(
        f"{key.removeprefix('chunks_')} {value}"
        for key, value in contexts.items()
        if key.startswith("chunks_")
    )
    click.echo(f"contexts:   {by_source or 'none'}; {contexts.get('contexts_cached', 0)} cached")
    if "calls" in contexts:
        click.echo(
            f"LLM usage:  {contexts.get('model')}: {contexts['calls']} calls, "
            f"{contexts.get('generated', 0)} generated, {contexts.get('failed', 0)} failed, "
            f"tokens in {contexts.get('input_tokens', 0)} / out {contexts.get('output_tokens', 0)}"
            f" / cache write {contexts.get('cache_creation_tokens', 0)}"
            f" / cache read {contexts.get('cache_read_tokens', 0)}"
        )
