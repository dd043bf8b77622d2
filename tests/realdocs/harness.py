"""Measure hierdoc on real documents against hand-written gold files.

Each document ``NAME.EXT`` in this folder has a gold file ``NAME.gold.yaml``, written by
reading the document (never from hierdoc's output)::

    document: common-paper-pilot-agreement.docx
    sections:    [{number: "8.4", heading: "Exceptions"}, ...]      # 10 or more
    definitions: [{term: "Affiliate", starts: "an entity that ..."}, ...]   # every term
                 # (optional: true on a term whose status as a definition is debatable)
    citations:   [{query: "Section 8.4", section: "8.4", heading: "Exceptions"}, ...]  # 10
    pages:       [{phrase: "a distinctive phrase", page: 12}, ...]  # PDFs; physical, 1-based

The metrics, per document (``measure_document``):

section recall
    Share of gold sections found: a stored section of the document whose *label* equals the
    gold number and whose *title* matches the gold heading. A gold number that is the
    heading itself with no label in it ("Indemnification") cites the section by its title
    alone: a section numbered in a list ("9. Indemnification") matches it too. A section's
    label is the number at the start of its heading ("8.4", "K.", "(b)", "Appendix A",
    "Section 3"); the words Section, Article, Clause, Requirement and § are dropped,
    Appendix, Annex, Schedule and Exhibit kept. Its *full label* adds the labels of its
    ancestors where the own label is not already qualified ("3" under "K." is "K.3", "(a)"
    or "a." under "8.1" is "8.1(a)"); either may equal the gold number. The title is the
    heading without its label; it matches when, reduced to lower-case words (markup and
    punctuation dropped), it equals the gold heading or begins with it (a run-in title
    followed by the clause's first sentence). A section whose heading is only its label
    ("(b)", "b.", "5.2") is titled by the start of its text. A title with dot leaders is a
    table-of-contents line and matches nothing.

heading-id precision
    Share of the document's sections (the preamble left out) whose heading and id are both
    clean. A heading is clean when it holds no markup (``**``, ``__``, ``_x``, backticks,
    HTML tags or entities, Markdown links, leading ``#``, escaped ``\\*``), does not start with
    punctuation other than "(", "[" or "§", does not end with "," ";" "(" "|" "*" "_" or "\\",
    holds no line break and no dot leaders ("....", a table-of-contents line), and is at
    most 200 characters (a whole paragraph taken as a
    heading is not clean). An id is clean when it is lower-case letters and digits joined
    by single "-" or ".", at most 120 characters, with no HTML word in it (span, strong, em,
    nbsp, amp, quot, lt, gt, ldquo, rdquo).

definition precision and recall
    Terms are compared reduced to lower-case words, without a leading "the", "a" or "an"
    ("The Program" is "Program"). A stored definition is right when its
    term is a gold term and the gold ``starts`` text (reduced the same way) begins within
    the first 100 characters of its definition; a definition that stops early (at a line
    end) is right when its text from there, five words at least, begins the gold's.
    Precision is right / stored definitions of the document (1.0 when none is stored:
    nothing wrong was shown). Recall asks the product as a user does: the share of gold
    terms for which ``Index.define`` (the term as the gold writes it, in this document)
    answers a right definition; for an acronym no document defines in words, ``define``
    answers its long form ("NDA" -> "Non-Disclosure Agreement"), which is right when it
    begins as the gold's. A gold term marked ``optional`` (its status as a definition is
    debatable) is right when stored but not needed for recall.

citation top-1
    Each gold query goes through ``Index.search`` (default settings: hybrid) on an index
    holding every real document. It is right when the first result comes from this
    document and its section, or a section beginning in its chunk, is a gold section match
    (label and heading as for section recall) of the cited number. When the first result
    is pinned (a cited section), each pinned result counts as first: a citation that names
    no document pins the section of every document that has it, in no order of its own.

question hit@1 and hit@5 (``questions``, optional)
    Each natural-language question goes through ``Index.search`` like a citation; hit@1 is
    right as citation top-1 is, hit@5 when any of the first five results is, where a
    result in a part of the gold section ("6(b)(1)" for "6(b)") also answers it.

reference resolution (``references``, optional)
    Each gold reference (its words, such as "Section 8.4 (Exceptions)", and the section it
    points to) is right when the document stores a cross-reference whose text begins those
    words ("Section 8.4") and whose target is a gold section match of the cited number.

page accuracy
    Each gold phrase is searched as a quoted phrase (exact mode) within the document; right
    when the first result's ``page_start <= page <= page_end`` and the span is at most three
    pages (a phrase not found is wrong). ``None`` (n/a) when results carry no page numbers.

pages/s
    Physical pages over the seconds to ingest the document alone into a fresh index with the
    hash stand-in embedder (conversion, structure, extraction, storage; no model).
"""

from __future__ import annotations

import re
import tempfile
import time
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import get_args

from hierdoc import Index
from hierdoc.config import IngestSettings, Settings
from hierdoc.models import SearchResult, SectionRecord
from hierdoc.pipeline.embed import Embedder

from ..hash_embedder import HashEmbedder
from .gold import Gold, GoldDefinition

CONVERTER_FIELDS = {".docx": "docx_converter", ".pdf": "pdf_converter"}

_KEPT_KEYWORDS = r"appendix|annex|schedule|exhibit|part|division|chapter"
_DROPPED_KEYWORDS = r"section|sec\.|article|art\.|clause|requirement|req\.|§+"
_LABEL = re.compile(
    rf"""^\s*(?:(?P<kept>{_KEPT_KEYWORDS})\s+|(?:{_DROPPED_KEYWORDS})\s*)?
    (?P<label>
        (?:\d+|[A-Za-z]{{1,2}}\d*|[IVXLCivxlc]+)(?:\.\d+)+(?:\([A-Za-z0-9]+\))*\.?  # 8.4, K.3, A1.1
      | [IVXLC]+(?:\.[A-Z0-9]{{1,3}})+\.?                                 # VIII.A., I.A.1.
      | \d+(?-i:[A-Z]{{0,2}})(?:\([A-Za-z0-9]+\))*[.)]?                   # 8, 8(a), 8., 23B, 8)
      | (?:[A-Z]{{1,2}}|[IVXLC]+)(?:\([A-Za-z0-9]+\))+                        # I(A), K(3)
      | (?:\([A-Za-z0-9]+\))+                                             # (a), (iv)(b)
      | (?:[A-Z]{{1,2}}|[IVXLC]+|[a-z])[.)]                               # K.  IV.  a)
    )(?=\s|$|[:\-–—.])
    """,
    re.VERBOSE | re.IGNORECASE,
)
_KEYWORD_LABEL = re.compile(  # a bare letter or Roman numeral after a keyword: ANNEX II, APP1, A-1
    rf"^\s*(?i:(?P<kept>{_KEPT_KEYWORDS})\s+|(?P<app>APP) ?|(?:{_DROPPED_KEYWORDS})\s+)"
    rf"(?P<label>[A-Z]-\d+|[IVXLC]+[A-Z]?|[A-Z]{{1,2}}|\d+[A-Z]{{0,2}})\b"
)
_MARKUP = re.compile(
    r"\*\*|__|(?<![\w])_(?=\w)|`|<[/a-zA-Z][^>]*>|&[a-z]+;|&#\d+;|\]\(|^\s*#|\\[*_]"
)
_HTML_WORDS = {"span", "strong", "em", "nbsp", "amp", "quot", "lt", "gt", "ldquo", "rdquo"}
_DOT_LEADER = re.compile(r"\.{4,}|…{2,}|(?:\. ){4,}")
_CLEAN_ID = re.compile(r"[a-z0-9]+(?:[-.][a-z0-9]+)*")


# normalisation and section labels


def words(text: str) -> str:
    """Lower-case words only: markup, quotes and punctuation become spaces."""
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"<[^>]+>", " ", text)
    return " ".join(re.sub(r"[^\w]+|_", " ", text.casefold()).split())


def normalize_label(label: str) -> str:
    """A section number as compared: lower-case, no dropped keyword, spaces or end dot."""
    text = label.strip().casefold()
    text = re.sub(rf"^(?:{_DROPPED_KEYWORDS})\s*", "", text)
    text = re.sub(r"\s+", "", text).rstrip(".")
    return text[:-1] if text.endswith(")") and "(" not in text else text


def split_heading(heading: str) -> tuple[str, str]:
    """(label, title) of a heading: "8.4 Exceptions" -> ("8.4", "Exceptions")."""
    plain = re.sub(r"\*\*|__|<[^>]+>|\\(?=[*_.])", "", heading).strip()
    match = _LABEL.match(plain) or _KEYWORD_LABEL.match(plain)
    if not match:
        return "", plain
    label = match.group("label")
    if match.groupdict().get("app"):
        label = f"appendix {label}"
    elif match.group("kept"):
        label = f"{match.group('kept')} {label}"
    title = plain[match.end() :].lstrip(" .:-–—)\t")
    return normalize_label(label), title


def qualify(parent: str, child: str) -> str:
    """The full label of ``child`` under ``parent``: "k" + "3" is "k.3"; "8.1" + "(a)" and
    "8.1" + "a" are "8.1(a)"; "8" + "8.4" stays "8.4"."""
    if not parent or not child or child.startswith(parent + ".") or child.startswith(parent + "("):
        return child
    if child.startswith("("):
        return parent + child
    return f"{parent}({child})" if child.isalpha() else f"{parent}.{child}"


def term_key(term: str) -> str:
    """A defined term as compared: its words, without a leading article ("The Program")."""
    return re.sub(r"^(?:the|a|an) ", "", words(term))


def title_matches(title: str, gold_heading: str) -> bool:
    if _DOT_LEADER.search(title):  # a table-of-contents line, not the section
        return False
    found, wanted = words(title), words(gold_heading)
    return bool(wanted) and (found == wanted or found.startswith(wanted + " "))


@dataclass(frozen=True)
class LabelledSection:
    record: SectionRecord
    label: str
    full_label: str
    title: str

    def is_number(self, number: str, heading: str = "") -> bool:
        if is_unnumbered(number, heading):
            return True
        wanted = normalize_label(number)
        return wanted in (self.label, self.full_label)


def is_unnumbered(number: str, heading: str) -> bool:
    """Whether a gold number names an unnumbered section: the number is the heading itself,
    with no label in it ("Glossary", "Mozilla Monitor", "non-textual amendment")."""
    return bool(words(number)) and words(number) == words(heading) and not split_heading(number)[0]


def labelled_sections(records: Sequence[SectionRecord]) -> list[LabelledSection]:
    """The sections of one document with their own and full labels."""
    by_id = {r.section_id: r for r in records}
    full: dict[str, str] = {}

    def full_label(record: SectionRecord) -> str:
        if record.section_id not in full:
            full[record.section_id] = ""  # guards against a cycle
            parent = by_id.get(record.parent_id or "")
            own = split_heading(record.heading)[0]
            full[record.section_id] = qualify(full_label(parent) if parent else "", own)
        return full[record.section_id]

    out = []
    for record in records:
        label, title = split_heading(record.heading)
        if not title and label:
            title = body_start(record)
        out.append(LabelledSection(record, label, full_label(record), title))
    return out


def is_point(label: str) -> bool:
    """A point's label: "(b)", "b", "(iv)" (a point is titled by its text, not a heading)."""
    return label.startswith("(") or (label.isalpha() and len(label) <= 4)


_LINK = re.compile(r"\[([^\[\]\n]{1,200})\](?:\[[^\[\]\n]{0,40}\]|\([^()\s]{0,2000}\))")


def body_start(record: SectionRecord) -> str:
    """The start of a section's own text, for a heading that is only a label ("(b)"), without
    Markdown's block-quote markers ("> (b) ...", a point an HTML page indents), nor a list
    bullet and bold around the label ("*   **2.1.** Except ...", as a page shows "2.1."), nor
    the brackets and target of a link ("**5.3** [*Title*][terms], ..." reads "Title, ...")."""
    text = re.sub(r"^(?:\s*>)+", "", record.text).strip()
    text = re.sub(r"^[*+-][ \t]+", "", text)
    text = re.sub(r"^(\*\*|__)(.{1,16}?)\1", r"\2", text)
    if text.startswith(record.heading.strip()):
        text = text[len(record.heading.strip()) :]
    return _LINK.sub(r"\1", text[:2500])[:200]


def matching_sections(
    sections: Sequence[LabelledSection], number: str, heading: str
) -> list[LabelledSection]:
    return [
        s for s in sections if s.is_number(number, heading) and title_matches(s.title, heading)
    ]


# the metrics


def heading_is_clean(heading: str) -> bool:
    text = heading.strip()
    if not text or len(text) > 200 or "\n" in text or _MARKUP.search(text):
        return False
    if _DOT_LEADER.search(text):
        return False
    return text[0] not in ".,;:)]}|>*_-–—" and text[-1] not in ",;(|*_\\"


def id_is_clean(section_id: str) -> bool:
    if len(section_id) > 120 or not _CLEAN_ID.fullmatch(section_id):
        return False
    return not _HTML_WORDS & set(re.split(r"[-.]", section_id))


def ratio(right: int, total: int) -> float | None:
    return right / total if total else None


@dataclass
class DocumentScore:
    """One document's figures under one converter setting (None: not measurable)."""

    name: str
    format: str
    converter: str
    section_recall: float | None = None
    heading_precision: float | None = None
    definition_precision: float | None = None
    definition_recall: float | None = None
    citation_top1: float | None = None
    citation_section: float | None = None
    """Share of the citations whose first result names the cited section itself as its
    ``section_id`` (not only a chunk where it begins)."""
    page_accuracy: float | None = None
    question_hit1: float | None = None
    question_hit5: float | None = None
    reference_resolution: float | None = None
    pages_per_second: float | None = None
    ingest_seconds: float | None = None
    pages: int | None = None
    sections_found: int = 0
    definitions_found: int = 0
    problems: list[str] = field(default_factory=list)
    misses: dict[str, list[str]] = field(default_factory=dict)


def section_scores(gold: Gold, sections: Sequence[LabelledSection], score: DocumentScore) -> None:
    missed = [
        f"{s.number} {s.heading}"
        for s in gold.sections
        if not matching_sections(sections, s.number, s.heading)
    ]
    score.section_recall = 1 - len(missed) / len(gold.sections)
    body = [s for s in sections if s.record.kind != "preamble"]
    clean = [s for s in body if heading_is_clean(s.record.heading)]
    clean = [s for s in clean if id_is_clean(s.record.section_id)]
    score.heading_precision = ratio(len(clean), len(body))
    score.sections_found = len(body)
    score.misses["sections"] = missed
    score.misses["unclean"] = [
        f"{s.record.section_id} | {s.record.heading[:80]}" for s in body if s not in clean
    ]


def defines(gold: GoldDefinition, term: str, text: str) -> bool:
    """Whether a stored (term, definition) is the gold definition (see the module)."""
    if term_key(gold.term) != term_key(term):
        return False
    found, starts = words(text), words(gold.starts)
    at = found.find(" ".join(starts.split()[:5]))
    if not 0 <= at <= 100:
        return False
    rest = found[at:]
    return rest.startswith(starts) or (len(rest.split()) >= 5 and starts.startswith(rest))


def definition_scores(
    gold: Gold,
    found: Sequence[tuple[str, str]],
    answers: Mapping[str, Sequence[tuple[str, str]]],
    score: DocumentScore,
) -> None:
    """``found``: (term, definition) pairs stored for the document; ``answers``: what
    ``Index.define`` answers for each gold term, as (term, definition) pairs."""
    right = [(t, d) for t, d in found if any(defines(g, t, d) for g in gold.definitions)]
    score.definitions_found = len(found)
    score.definition_precision = ratio(len(right), len(found)) if found else 1.0
    required = [g for g in gold.definitions if not g.optional]
    missed = [
        g.term for g in required if not any(defines(g, t, d) for t, d in answers.get(g.term, ()))
    ]
    score.definition_recall = 1 - len(missed) / len(required) if required else None
    score.misses["definitions"] = missed
    score.misses["wrong_definitions"] = [f"{t} = {d[:60]}" for t, d in found if (t, d) not in right]


def citation_is_right(index: Index, result: SearchResult, source: str, wanted: set[str]) -> bool:
    if result.source != source:
        return False
    if result.section_id in wanted:
        return True
    # the chunk where a wanted section begins ("11. Definitions" opens the chunk of "11.1");
    # stored chunks do not carry the sections beginning in them, the sections table does
    begins = {s.chunk_id for w in wanted for s in index.store.sections(w, source)}
    return result.chunk_id in begins


def cited_head(results: Sequence[SearchResult]) -> list[SearchResult]:
    """The results a citation's top-1 is read from: the first, or when it is pinned, every
    pinned one. A citation that names no document and that several documents hold pins
    each one's section first, in an order the query does not decide ("Section 17" is
    clause 17 of the GPL and of a covenant alike)."""
    if not results:
        return []
    return [r for r in results if r.pinned] if results[0].pinned else results[:1]


def citation_scores(
    index: Index, gold: Gold, source: str, sections: Sequence[LabelledSection], score: DocumentScore
) -> None:
    missed, other_id = [], []
    for citation in gold.citations:
        wanted = {
            s.record.section_id
            for s in matching_sections(sections, citation.section, citation.heading)
        }
        results = index.search(citation.query).results
        head = cited_head(results)
        top = f"{Path(results[0].source).name}#{results[0].section_id}" if results else "-"
        if not (wanted and any(citation_is_right(index, r, source, wanted) for r in head)):
            missed.append(f"{citation.query} -> {top}")
        elif not any(r.source == source and r.section_id in wanted for r in head):
            other_id.append(f"{citation.query} -> {top}")
    score.citation_top1 = 1 - len(missed) / len(gold.citations)
    score.citation_section = 1 - len(missed + other_id) / len(gold.citations)
    score.misses["citations"] = missed
    score.misses["citation_section_ids"] = other_id


def question_scores(
    index: Index, gold: Gold, source: str, sections: Sequence[LabelledSection], score: DocumentScore
) -> None:
    if not gold.questions:
        return
    first, five, missed = 0, 0, []
    for question in gold.questions:
        wanted = within(
            sections,
            {
                s.record.section_id
                for s in matching_sections(sections, question.section, question.heading)
            },
        )
        results = index.search(question.query).results
        head = cited_head(results)
        hits = [bool(wanted) and citation_is_right(index, r, source, wanted) for r in results[:5]]
        if wanted and any(citation_is_right(index, r, source, wanted) for r in head):
            first += 1
        if any(hits):
            five += 1
        else:
            top = f"{Path(results[0].source).name}#{results[0].section_id}" if results else "-"
            missed.append(f"{question.query} -> {top}")
    score.question_hit1 = first / len(gold.questions)
    score.question_hit5 = five / len(gold.questions)
    score.misses["questions"] = missed


def within(sections: Sequence[LabelledSection], ids: set[str]) -> set[str]:
    """``ids`` and the ids of every section below one of them."""
    parents = {s.record.section_id: s.record.parent_id for s in sections}
    found = set(ids)
    for section_id in parents:
        ancestor = parents.get(section_id)
        while ancestor and ancestor not in ids:
            ancestor = parents.get(ancestor)
        if ancestor:
            found.add(section_id)
    return found


def reference_scores(
    index: Index, gold: Gold, source: str, sections: Sequence[LabelledSection], score: DocumentScore
) -> None:
    if not gold.references:
        return
    chunk_ids = [c.chunk.chunk_id for c in index.store.chunks_of_source(source)]
    stored = index.store.references_from(chunk_ids)
    missed = []
    for reference in gold.references:
        wanted = {
            s.record.section_id
            for s in matching_sections(sections, reference.section, reference.heading)
        }
        found = [r for r in stored if writes(r.text, reference.text)]
        right = [r for r in found if r.target_source in (None, source)]
        if not any(r.target_section_id in wanted for r in right):
            targets = sorted({str(r.target_section_id) for r in found}) or ["not stored"]
            missed.append(f"{reference.text} -> {', '.join(targets[:3])}")
    score.reference_resolution = 1 - len(missed) / len(gold.references)
    score.misses["references"] = missed


def writes(stored: str, said: str) -> bool:
    """Whether a stored reference's text is the gold's, or the start of it ("Section 5" of
    "Section 5 of the Agreement"), or holds it as a list does one of its items ("Sections
    5.3" of "Sections 5.3 and 8 through 10", whose every target carries the whole list's
    text; "2.4" of "see 2.4")."""
    stored, said = words(stored), words(said)
    if not stored or not said:
        return False
    return said.startswith(stored) or f" {said} " in f" {stored} "


def page_scores(index: Index, gold: Gold, source: str, score: DocumentScore) -> None:
    if not gold.pages:
        return
    right, measured, missed = 0, 0, []
    for sample in gold.pages:
        phrase = sample.phrase.replace('"', " ")
        results = index.search(f'"{phrase}"', mode="exact", source=source, top_k=1).results
        if not results:
            missed.append(f"p{sample.page} {sample.phrase[:40]} -> not found")
            continue
        first = getattr(results[0], "page_start", None)
        if first is None:
            continue
        last = getattr(results[0], "page_end", None) or first
        measured += 1
        if first <= sample.page <= last and last - first <= 2:
            right += 1
        else:
            missed.append(f"p{sample.page} {sample.phrase[:40]} -> {first}-{last}")
    score.page_accuracy = ratio(right, len(gold.pages)) if measured else None
    score.misses["pages"] = missed


def measure_document(index: Index, gold: Gold, converter: str) -> DocumentScore:
    """Every metric but speed for one document of an index that holds it (see the module)."""
    score = DocumentScore(gold.name, gold.format, converter)
    source = source_of(index, gold.document)
    if source is None:
        score.problems.append("not in the index")
        return score
    sections = labelled_sections(index.store.sections_of_source(source))
    section_scores(gold, sections, score)
    found = [(d.term, d.definition) for d in index.store.all_definitions() if d.source == source]
    definition_scores(gold, found, defined(index, gold, source), score)
    citation_scores(index, gold, source, sections, score)
    question_scores(index, gold, source, sections, score)
    reference_scores(index, gold, source, sections, score)
    page_scores(index, gold, source, score)
    return score


def defined(index: Index, gold: Gold, source: str) -> dict[str, list[tuple[str, str]]]:
    """What ``Index.define`` answers for each gold term, within the document ``source``; a
    long form answers the acronym asked for ("ISAO" answered by "ISAOs": "Information
    Sharing and Analysis Organizations")."""
    answers = {}
    for term in {g.term for g in gold.definitions}:
        lookup = index.define(term, source=source)
        answers[term] = [
            (term if d.style == "acronym" else d.term, d.definition) for d in lookup.definitions
        ]
    return answers


def source_of(index: Index, document: Path) -> str | None:
    wanted = document.resolve()
    for record in index.documents():
        if Path(record.source).resolve() == wanted:
            return record.source
    return None


# converters, indexes and timing


def converter_values() -> list[str]:
    """The converter names ``IngestSettings`` accepts for DOCX and PDF today, default first;
    ``["default"]`` when it has no converter settings."""
    fields = IngestSettings.model_fields
    if not all(name in fields for name in CONVERTER_FIELDS.values()):
        return ["default"]
    values: list[str] = []
    for name in CONVERTER_FIELDS.values():
        default = str(fields[name].default)
        values += [default, *(str(v) for v in get_args(fields[name].annotation))]
    return list(dict.fromkeys(values))


def settings_for(converter: str) -> Settings:
    """Default settings with ``converter`` for every format that accepts it."""
    settings = Settings()
    for name in CONVERTER_FIELDS.values():
        if name in Settings.model_fields and converter in get_args(
            Settings.model_fields[name].annotation
        ):
            setattr(settings, name, converter)
    return settings


def converter_label(gold: Gold, converter: str) -> str:
    """The converter a document went through: "-" for formats with one converter."""
    return converter if gold.document.suffix in CONVERTER_FIELDS else "-"


def build_index(
    folder: Path, golds: Iterable[Gold], converter: str, embedder: Embedder | None = None
) -> tuple[Index, dict[str, str]]:
    """An index of every gold document under ``converter``, with the problems by file name."""
    index = Index.open(folder, settings_for(converter), embedder=embedder or HashEmbedder())
    report = index.ingest([g.document for g in golds])
    return index, {Path(p.source).name: p.reason for p in report.problems}


def time_ingest(gold: Gold, converter: str) -> tuple[float, int | None]:
    """Seconds to ingest the document alone with the hash embedder, and its page count."""
    with (
        tempfile.TemporaryDirectory() as folder,
        Index.open(folder, settings_for(converter), embedder=HashEmbedder()) as index,
    ):
        start = time.perf_counter()
        index.ingest([gold.document])
        seconds = time.perf_counter() - start
        pages = next((d.pages for d in index.documents()), None)
    if pages is None and gold.document.suffix == ".pdf":
        pages = pdf_pages(gold.document)
    return seconds, pages


def pdf_pages(path: Path) -> int:
    import pypdfium2

    document = pypdfium2.PdfDocument(str(path))
    try:
        return len(document)
    finally:
        document.close()


def measure_all(
    golds: Sequence[Gold],
    converter: str,
    folder: Path,
    embedder: Embedder | None = None,
    with_timing: bool = True,
) -> list[DocumentScore]:
    """Every document's figures under one converter, from one index holding all of them;
    ``with_timing`` also ingests each document alone to time it."""
    index, problems = build_index(folder, golds, converter, embedder)
    try:
        scores = []
        for gold in golds:
            score = measure_document(index, gold, converter_label(gold, converter))
            if gold.document.name in problems:
                score.problems.append(problems[gold.document.name])
            if with_timing:
                seconds, pages = time_ingest(gold, converter)
                score.ingest_seconds, score.pages = seconds, pages
                score.pages_per_second = pages / seconds if pages and seconds else None
            scores.append(score)
        return scores
    finally:
        index.close()
