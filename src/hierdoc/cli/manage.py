"""The commands that manage what is indexed: ``ls``, ``rm`` and ``outline``.

``ls`` and ``outline`` open the index as a reader; ``rm`` checks that there is an index
(as a reader, so a directory without one stays untouched) and then removes under the
writer lock. Errors are left to :func:`hierdoc.cli.main`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .commands import _echo_json, _relative
from .state import State, index_options

if TYPE_CHECKING:
    from ..views import DocumentSummary, Outline

COMES_BACK = (
    "a removed file that still exists on disk comes back at the next "
    "`hierdoc ingest` of its folder; delete or move the file to keep it out"
)
HEADING_WIDTH = 80


def _when(stamp: str) -> str:
    """An ISO 8601 UTC time as "2026-11-24 04:31 UTC" ("-" when unknown)."""
    return f"{stamp[:10]} {stamp[11:16]} UTC" if stamp else "-"


def format_listing(summaries: list[DocumentSummary]) -> list[str]:
    """``ls`` as text: a header and one aligned line per document. PAGES appears when some
    document has a page count, METADATA (the keys of each document's metadata) when some
    document has metadata."""
    pages = any(s.pages is not None for s in summaries)
    metadata = any(s.metadata for s in summaries)
    header = ["SOURCE", "CHUNKS", "SECTIONS", "DEFINITIONS", *(["PAGES"] * pages), "CHARS"]
    rows = [
        [
            _relative(s.source),
            str(s.chunks),
            str(s.sections),
            str(s.definitions),
            *([str(s.pages) if s.pages is not None else "-"] * pages),
            f"{s.chars:,}",
        ]
        for s in summaries
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    tails = [["INGESTED", *(["METADATA"] * metadata)]]
    tails += [[_when(s.ingested_at), *([", ".join(s.metadata)] * metadata)] for s in summaries]
    when = max(len(tail[0]) for tail in tails)
    lines = []
    for row, tail in zip([header, *rows], tails, strict=True):
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join([*cells, tail[0].ljust(when), *tail[1:]]).rstrip())
    return lines


def format_outline(outline: Outline) -> list[str]:
    """``outline`` as text: the document, then each section's id and heading, indented."""
    lines = [f"{_relative(outline.source)}: {outline.title}"]
    for depth, node in outline.walk():
        heading = " ".join(node.heading.split())
        if len(heading) > HEADING_WIDTH:
            heading = heading[: HEADING_WIDTH - 3] + "..."
        lines.append(f"{'  ' * depth}{node.section_id}  {heading}".rstrip())
    return lines


@click.command(name="ls")
@index_options
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_obj
def ls(state: State, as_json: bool) -> None:
    """The indexed documents: chunks, sections, definitions, pages, size, ingest time and
    metadata keys."""
    with state.open_reader() as index:
        summaries = index.document_summaries()
        directory = index.directory
    if as_json:
        _echo_json([s.to_dict() for s in summaries])
    elif not summaries:
        click.echo(f"no documents in the index at {directory}")
    else:
        for line in format_listing(summaries):
            click.echo(line)


@click.command(name="rm")
@index_options
@click.argument("sources", nargs=-1, required=True)
@click.option("--wait", is_flag=True, help="Wait for another process writing this index.")
@click.option("--json", "as_json", is_flag=True, help="Print the removed sources as JSON.")
@click.pass_obj
def rm(state: State, sources: tuple[str, ...], wait: bool, as_json: bool) -> None:
    """Remove documents from the index (names as for search --source).

    Nothing is removed if any name matches no indexed document. A removed file that
    still exists on disk comes back at the next `hierdoc ingest` of its folder.
    """
    with state.open_reader():  # no index there: an error, and nothing is created
        pass
    with state.open_writer(rebuild=False, wait=wait) as index:
        removed = index.remove(list(sources))
    if as_json:
        _echo_json({"removed": removed, "note": COMES_BACK})
        return
    noun = "document" if len(removed) == 1 else "documents"
    click.echo(f"removed {len(removed)} {noun}: {', '.join(_relative(s) for s in removed)}")
    click.echo(f"note: {COMES_BACK}")


@click.command()
@index_options
@click.argument("source")
@click.option("--json", "as_json", is_flag=True, help="Print the tree as nested JSON.")
@click.pass_obj
def outline(state: State, source: str, as_json: bool) -> None:
    """The section tree of a document: ids and headings, indented by depth."""
    with state.open_reader() as index:
        tree = index.outline(source)
    if as_json:
        _echo_json(tree.to_dict())
        return
    for line in format_outline(tree):
        click.echo(line)
