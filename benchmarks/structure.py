"""Structure on the labelled corpus: section tree, headings, definitions, cross-references
and citations of real documents against gold taken from their structured sources.

    python benchmarks/structure.py                 # the whole corpus (archive + ObliQA)
    python benchmarks/structure.py --subset        # the handful of documents the tests run
    python benchmarks/structure.py --misses        # also what each document missed
    python benchmarks/structure.py --doc rfc-9110 --doc obliqa-07-gen --misses
    python benchmarks/structure.py --json /tmp/structure.json --markdown

About four minutes for the whole corpus on two shared cores, ten seconds for ``--subset``.
The archive and the subset are made by ``benchmarks/structure_corpus_build.py`` (its
docstring says from what); rebuild them with::

    python benchmarks/structure_corpus_build.py --mirrors DIR --out /tmp/corpus \
        --archive benchmarks/structure_corpus.tar.xz --subset tests/structure_corpus \
        --pdf-archive benchmarks/structure_corpus_pdf.tar.xz

The corpus is ``benchmarks/structure_corpus.tar.xz`` and the PDF twins of some of its
documents (their HTML printed by Chromium, with running heads and page numbers) in
``benchmarks/structure_corpus_pdf.tar.xz`` (both unpacked once into ``--cache``) plus
the 40 ObliQA documents read in place from ``$HIERDOC_DATASETS/obliqa`` (see
``benchmarks/structure_gold.py`` for the gold format); ``--subset`` reads
``tests/structure_corpus`` instead. Every document goes into one index (default settings,
the hash stand-in embedder: nothing measured here depends on embeddings), one document
per ``ingest`` call, timed; a PDF twin goes into an index of its own, beside the other
twins. Per document, with micro-averages per format, per publisher
and over all:

section ids P/R/F1
    A stored section (the preamble left out) is right when its id is a gold id. Stored
    sections inside a gold leaf (points the gold does not list, "(a)" of a rule) are not
    counted, nor are stored points ("(a)", "b.") under a gold section none of whose gold
    children is a point (a rule whose only gold children are its guidance notes); every
    other stored section is, so a contents line or a running header taken for a section
    lowers precision.
tree P/R/F1
    As ids, but a section is right only when its parent is right too: its nearest stored
    ancestor that is a gold section is the gold parent (both None at the top).
heading
    Share of the gold sections with a title whose stored section (same id) has a heading
    that, without its number and reduced to lower-case words, equals the title or begins
    with it (tests/realdocs/harness.py ``title_matches``); a point whose heading is only
    its label ("(a)") is titled by the start of its text, as in that harness.
definitions P/R
    A stored definition is right when its term is a gold term (lower-case words, no
    leading article) and the first six words of the gold text (without a leading
    "means") occur within its first 150 characters. Measured where the gold lists
    definitions.
references
    Share of gold references (from section, to section) for which the index stores a
    reference from that section (or one inside it) resolved to that target (or a section
    inside it) of the same document.
citation@1
    Each gold query ("Section 3.1.2 of <title>", "Rule 5.3.6 of GEN") through
    ``Index.search`` on the index of the whole corpus; right when the first result (each
    pinned result, when pinned) is of this document and its ``section_id`` is the cited
    section or one inside it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.hash_embedder, tests.realdocs.harness
sys.path.insert(0, str(ROOT / "benchmarks"))

from structure_gold import (  # noqa: E402
    LabelledDocument,
    load_corpus,
    obliqa_documents,
    unpack,
)

from hierdoc import Index  # noqa: E402
from hierdoc.config import Settings  # noqa: E402
from hierdoc.models import SectionRecord  # noqa: E402
from tests.hash_embedder import HashEmbedder  # noqa: E402
from tests.realdocs.harness import (  # noqa: E402
    body_start,
    cited_head,
    is_point,
    split_heading,
    term_key,
    title_matches,
    words,
)

ARCHIVE = ROOT / "benchmarks" / "structure_corpus.tar.xz"
PDF_ARCHIVE = ROOT / "benchmarks" / "structure_corpus_pdf.tar.xz"
SUBSET = ROOT / "tests" / "structure_corpus"
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "hierdoc-structure-corpus"


@dataclass
class Counts:
    """What one document (or a group of them) scored, as counts to sum."""

    gold_sections: int = 0
    stored_sections: int = 0
    right_ids: int = 0
    right_tree: int = 0
    gold_headings: int = 0
    right_headings: int = 0
    gold_definitions: int = 0
    stored_definitions: int = 0
    right_stored_definitions: int = 0
    recalled_definitions: int = 0
    gold_references: int = 0
    resolved_references: int = 0
    citations: int = 0
    right_citations: int = 0
    seconds: float = 0.0
    characters: int = 0

    def add(self, other: Counts) -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)


@dataclass
class DocumentResult:
    id: str
    format: str
    publisher: str
    counts: Counts
    misses: dict[str, list[str]] = field(default_factory=dict)
    problem: str = ""


def share(right: int, total: int) -> float | None:
    return right / total if total else None


def f1(precision: float | None, recall: float | None) -> float | None:
    if precision is None or recall is None:
        return None
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def figures(counts: Counts) -> dict[str, float | None]:
    """The ratios of a :class:`Counts` (None where nothing was measured)."""
    id_p = share(counts.right_ids, counts.stored_sections)
    id_r = share(counts.right_ids, counts.gold_sections)
    tree_p = share(counts.right_tree, counts.stored_sections)
    tree_r = share(counts.right_tree, counts.gold_sections)
    return {
        "id_p": id_p,
        "id_r": id_r,
        "id_f1": f1(id_p, id_r),
        "tree_p": tree_p,
        "tree_r": tree_r,
        "tree_f1": f1(tree_p, tree_r),
        "heading": share(counts.right_headings, counts.gold_headings),
        "def_p": share(counts.right_stored_definitions, counts.stored_definitions)
        if counts.gold_definitions
        else None,
        "def_r": share(counts.recalled_definitions, counts.gold_definitions),
        "refs": share(counts.resolved_references, counts.gold_references),
        "cite1": share(counts.right_citations, counts.citations),
    }


# sections


def gold_ancestor(record: SectionRecord, by_id: dict[str, SectionRecord], gold: set[str]):
    """The id of the nearest stored ancestor of ``record`` that is a gold section."""
    seen = {record.section_id}
    parent = record.parent_id
    while parent and parent not in seen:
        if parent in gold:
            return parent
        seen.add(parent)
        parent = by_id[parent].parent_id if parent in by_id else None
    return None


def gold_point(number: str) -> bool:
    """Whether a gold section's number ends in a point: "2.1.1(1)", "(a)", "b", "iv"."""
    last = number.rstrip(".").rsplit(".", 1)[-1]
    return number.endswith(")") or is_point(last)


def unlisted_point(record: SectionRecord, ancestor: str | None, pointed: set[str]) -> bool:
    """A stored point ("(a)") under a gold section whose gold children hold no point."""
    return bool(ancestor) and ancestor not in pointed and is_point(split_heading(record.heading)[0])


def section_counts(doc: LabelledDocument, records: Sequence[SectionRecord], result: DocumentResult):
    counts = result.counts
    gold = {s.id: s for s in doc.sections}
    leaves = set(gold) - {s.parent for s in doc.sections if s.parent}
    pointed = {s.parent for s in doc.sections if s.parent and gold_point(s.number)}
    by_id = {r.section_id: r for r in records}
    body = [r for r in records if r.kind != "preamble"]
    counted, wrong_parent = [], []
    for record in body:
        ancestor = gold_ancestor(record, by_id, set(gold))
        if record.section_id not in gold and ancestor in leaves:
            continue  # a point inside a gold leaf: the gold does not go that deep
        if record.section_id not in gold and unlisted_point(record, ancestor, pointed):
            continue  # a point of a section whose points the gold does not list
        counted.append(record)
        if record.section_id in gold and ancestor != gold[record.section_id].parent:
            wrong_parent.append(f"{record.section_id} under {ancestor}")
    right = [r for r in counted if r.section_id in gold]
    counts.gold_sections = len(gold)
    counts.stored_sections = len(counted)
    counts.right_ids = len(right)
    counts.right_tree = len(right) - len(wrong_parent)
    found = {r.section_id for r in right}
    result.misses["sections"] = [
        f"{s.id} {s.heading or ''}" for s in doc.sections if s.id not in found
    ]
    result.misses["extra_sections"] = [
        f"{r.section_id} | {r.heading[:60]}" for r in counted if r.section_id not in gold
    ]
    result.misses["nesting"] = wrong_parent
    heading_counts(doc, by_id, result)


def stored_title(record: SectionRecord) -> str:
    """A section's title: its heading without the number; for a point whose heading is only
    its label ("(a)"), the start of its text ("(a) Authority. This part ...")."""
    label, title = split_heading(record.heading)
    return body_start(record) if not title and is_point(label) else title


def heading_counts(doc: LabelledDocument, by_id: dict[str, SectionRecord], result: DocumentResult):
    titled = [s for s in doc.sections if s.heading]
    missed = []
    for section in titled:
        record = by_id.get(section.id)
        if not (record and title_matches(stored_title(record), section.heading)):
            shown = record.heading[:60] if record else "-"
            missed.append(f"{section.id}: {section.heading!r} != {shown!r}")
    result.counts.gold_headings = len(titled)
    result.counts.right_headings = len(titled) - len(missed)
    result.misses["headings"] = missed


# definitions


_MEANS = re.compile(r"^(?:means|shall mean|mean|is|are|has the meaning)\s+")


def definition_key(text: str) -> str:
    """The first six words of a definition, without a leading "means"."""
    return " ".join(_MEANS.sub("", words(text)).split()[:6])


def defines(term: str, text: str, gold_term: str, gold_text: str) -> bool:
    return term_key(term) == term_key(gold_term) and definition_key(gold_text) in words(text)[:150]


def definition_counts(doc: LabelledDocument, index: Index, source: str, result: DocumentResult):
    if doc.definitions is None:
        return
    stored = [(d.term, d.definition) for d in index.store.all_definitions() if d.source == source]
    right = [
        (t, d) for t, d in stored if any(defines(t, d, g.term, g.text) for g in doc.definitions)
    ]
    recalled = [g for g in doc.definitions if any(defines(t, d, g.term, g.text) for t, d in right)]
    counts = result.counts
    counts.gold_definitions = len(doc.definitions)
    counts.stored_definitions = len(stored)
    counts.right_stored_definitions = len(right)
    counts.recalled_definitions = len(recalled)
    result.misses["definitions"] = [g.term for g in doc.definitions if g not in recalled]
    result.misses["wrong_definitions"] = [
        f"{t} = {d[:60]}" for t, d in stored if (t, d) not in right
    ]


# references and citations


def within(section_id: str | None, ancestor: str) -> bool:
    return bool(section_id) and (section_id == ancestor or section_id.startswith(ancestor + "-"))


def reference_counts(doc: LabelledDocument, index: Index, source: str, result: DocumentResult):
    if doc.references is None:
        return
    chunk_ids = [c.chunk.chunk_id for c in index.store.chunks_of_source(source)]
    stored = [
        r
        for r in index.store.references_from(chunk_ids)
        if r.target_section_id and r.target_source in (None, source)
    ]
    missed = [
        f"{g.origin} -> {g.target}"
        for g in doc.references
        if not any(
            within(r.section_id, g.origin) and within(r.target_section_id, g.target) for r in stored
        )
    ]
    result.counts.gold_references = len(doc.references)
    result.counts.resolved_references = len(doc.references) - len(missed)
    result.misses["references"] = missed


def citation_counts(doc: LabelledDocument, index: Index, source: str, result: DocumentResult):
    missed = []
    for citation in doc.citations:
        results = index.search(citation.query).results
        head = cited_head(results)
        if not any(r.source == source and within(r.section_id, citation.section) for r in head):
            top = f"{Path(results[0].source).name}#{results[0].section_id}" if results else "-"
            missed.append(f"{citation.query} -> {top} (wanted {citation.section})")
    result.counts.citations = len(doc.citations)
    result.counts.right_citations = len(doc.citations) - len(missed)
    result.misses["citations"] = missed


# the run


def warm_up(folder: Path) -> None:
    """One small document ingested first, so that no measured document pays for imports."""
    sample = folder / "warm-up.md"
    sample.write_text("# Warm up\n\n## 1. Scope\n\nA sentence.\n", encoding="utf-8")
    with Index.open(folder / "warm-up", Settings(), embedder=HashEmbedder()) as index:
        index.ingest([sample])


def ingest_timed(
    index: Index, documents: Sequence[LabelledDocument]
) -> dict[str, tuple[float, str]]:
    """Each document ingested on its own call: seconds and the problem reported, by id."""
    timing = {}
    for doc in documents:
        start = time.perf_counter()
        report = index.ingest([doc.document])
        problems = "; ".join(p.reason for p in report.problems)
        timing[doc.id] = (time.perf_counter() - start, problems)
    return timing


def sources_by_path(index: Index) -> dict[Path, str]:
    return {Path(d.source).resolve(): d.source for d in index.documents()}


def title_rounds(documents: Sequence[LabelledDocument]) -> list[list[LabelledDocument]]:
    """The documents in rounds of distinct titles: a PDF twin of a document (same title)
    goes into a later round, so that a citation names one document of its index."""
    rounds: list[list[LabelledDocument]] = []
    for doc in documents:
        free = next((r for r in rounds if all(d.title != doc.title for d in r)), None)
        if free is None:
            rounds.append(free := [])
        free.append(doc)
    return rounds


def measure(documents: Sequence[LabelledDocument], folder: Path) -> list[DocumentResult]:
    """Every document's figures, from one index holding all of them (one per round of
    distinct titles, see :func:`title_rounds`)."""
    warm_up(folder)
    by_id = {}
    for number, documents_of_round in enumerate(title_rounds(documents)):
        for result in measure_round(documents_of_round, folder / f"index-{number}"):
            by_id[result.id] = result
    return [by_id[doc.id] for doc in documents]


def measure_round(documents: Sequence[LabelledDocument], folder: Path) -> list[DocumentResult]:
    with Index.open(folder, Settings(), embedder=HashEmbedder()) as index:
        timing = ingest_timed(index, documents)
        sources = sources_by_path(index)
        results = []
        for doc in documents:
            result = DocumentResult(doc.id, doc.format, doc.publisher, Counts())
            result.counts.seconds, result.problem = timing[doc.id]
            result.counts.characters = doc.document.stat().st_size
            source = sources.get(doc.document.resolve())
            if source is None:
                result.problem = result.problem or "not in the index"
                result.counts.gold_sections = len(doc.sections)
                result.counts.citations = len(doc.citations)
            else:
                section_counts(doc, index.store.sections_of_source(source), result)
                definition_counts(doc, index, source, result)
                reference_counts(doc, index, source, result)
                citation_counts(doc, index, source, result)
            results.append(result)
        return results


# reports

COLUMNS = (
    "docs",
    "id P",
    "id R",
    "id F1",
    "tree F1",
    "heading",
    "def P",
    "def R",
    "refs",
    "cite@1",
)
FIGURES = ("id_p", "id_r", "id_f1", "tree_f1", "heading", "def_p", "def_r", "refs", "cite1")


def cell(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def total(results: Iterable[DocumentResult]) -> Counts:
    counts = Counts()
    for result in results:
        counts.add(result.counts)
    return counts


def grouped(results: Sequence[DocumentResult], key: str) -> dict[str, list[DocumentResult]]:
    groups: dict[str, list[DocumentResult]] = {}
    for result in results:
        groups.setdefault(getattr(result, key), []).append(result)
    return dict(sorted(groups.items()))


def summary_rows(results: Sequence[DocumentResult], key: str | None) -> list[list[str]]:
    groups = grouped(results, key) if key else {}
    groups["all"] = list(results)
    rows = []
    for name, members in groups.items():
        values = figures(total(members))
        rows.append([name, str(len(members)), *(cell(values[f]) for f in FIGURES)])
    return rows


def document_rows(results: Sequence[DocumentResult]) -> list[list[str]]:
    rows = []
    for result in results:
        values = figures(result.counts)
        name = f"{result.id} ({result.format}, {result.publisher})"
        rows.append([name, "1", *(cell(values[f]) for f in FIGURES)])
    return rows


def slowest_rows(results: Sequence[DocumentResult], count: int = 8) -> list[list[str]]:
    ranked = sorted(results, key=lambda r: r.counts.seconds, reverse=True)[:count]
    return [
        [
            r.id,
            r.format,
            f"{r.counts.seconds:.2f}",
            f"{r.counts.characters / 1000:.0f}",
            f"{r.counts.characters / 1000 / r.counts.seconds:.0f}" if r.counts.seconds else "-",
        ]
        for r in ranked
    ]


def render(header: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
        return "\n".join([*lines, *("| " + " | ".join(row) + " |" for row in rows)])
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows, strict=True)]
    lines = [
        "  ".join(str(x).ljust(w) for x, w in zip(line, widths, strict=True))
        for line in [header, *rows]
    ]
    return "\n".join(lines)


def report(results: Sequence[DocumentResult], markdown: bool, per_document: bool) -> str:
    parts = []
    if per_document:
        parts += ["Per document", render(("document", *COLUMNS), document_rows(results), markdown)]
    parts += ["Per format", render(("format", *COLUMNS), summary_rows(results, "format"), markdown)]
    parts += [
        "Per publisher",
        render(("publisher", *COLUMNS), summary_rows(results, "publisher"), markdown),
        "Slowest documents (ingest alone, hash embedder)",
        render(
            ("document", "fmt", "ingest s", "k chars", "k chars/s"), slowest_rows(results), markdown
        ),
    ]
    return "\n\n".join(parts)


def print_misses(results: Sequence[DocumentResult], limit: int) -> None:
    for result in results:
        print(f"\n== {result.id}" + (f"  PROBLEM: {result.problem}" if result.problem else ""))
        for kind, missed in result.misses.items():
            if missed:
                shown = "; ".join(missed[:limit]) + (
                    f" ... (+{len(missed) - limit})" if len(missed) > limit else ""
                )
                print(f"  {kind} ({len(missed)}): {shown}")


def corpus(subset: bool, cache: Path) -> list[LabelledDocument]:
    """The subset of the tests, or the archive's documents and ObliQA's."""
    if subset:
        return load_corpus(SUBSET)
    documents = [
        doc
        for archive in (ARCHIVE, PDF_ARCHIVE)
        if archive.is_file()
        for doc in load_corpus(unpack(archive, cache))
    ]
    return obliqa_documents() + documents


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subset", action="store_true", help="the test subset only")
    parser.add_argument("--doc", action="append", default=[], help="only these document ids")
    parser.add_argument("--format", action="append", default=[], help="only these formats")
    parser.add_argument("--publisher", action="append", default=[], help="only these publishers")
    parser.add_argument("--misses", action="store_true", help="print what each document missed")
    parser.add_argument("--limit", type=int, default=8, help="misses shown per kind")
    parser.add_argument("--markdown", action="store_true", help="tables in Markdown")
    parser.add_argument(
        "--no-documents", action="store_true", help="leave out the per-document table"
    )
    parser.add_argument("--json", type=Path, help="write every document's counts here")
    parser.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE, help="where the archive is unpacked"
    )
    args = parser.parse_args(argv)
    documents = corpus(args.subset, args.cache)
    documents = [
        d
        for d in documents
        if (not args.doc or d.id in args.doc)
        and (not args.format or d.format in args.format)
        and (not args.publisher or d.publisher in args.publisher)
    ]
    if not documents:
        parser.error("no document to measure")
    with tempfile.TemporaryDirectory() as folder:
        results = measure(documents, Path(folder))
    print(report(results, args.markdown, not args.no_documents))
    if args.misses:
        print_misses(results, args.limit)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
