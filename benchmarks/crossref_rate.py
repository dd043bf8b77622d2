"""How many of the GDPR's cross-references hierdoc finds and resolves.

Reads ``gdpr/gdpr.md``, rebuilds its section ids by hierdoc's conventions
(``chapter-3``, ``chapter-3-section-2``, ``article-17``, paragraph
``article-17-3``, point ``article-17-3-b``) from its headings, its "1. "
paragraph lines and its "(a) " point lines, and runs
:func:`hierdoc.extract.crossrefs.find_references` over every paragraph and
point, resolving each reference from where it sits.

The gold is a plain oracle, independent of the grammar under test: every
"Article(s) N" group (with its lists and ranges: "Articles 15 to 22 and 34",
"Article 46 or Article 47") not followed by "of the ...", "of Directive ..."
or "TFEU" cites the GDPR's own article N. Where the group is a single
"[point (x) of] Article N(p)", the exact gold id is the longest known prefix of
``article-N-p-x``. A gold mention counts as resolved when an internal reference
found over it resolves to ``article-N`` or below.

    python benchmarks/crossref_rate.py [--datasets DIR] [--examples 8]

The counting lives in :func:`rate` and :func:`exact_rate`, which take plain
tuples, so that the same numbers can be computed from references read back from
a real index.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hierdoc.eval.datasets import default_datasets
from hierdoc.pipeline.extract.crossrefs import FoundReference, find_references, resolve
from hierdoc.text.numbering import roman_to_int

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Rate:
    """How many of ``total`` references resolved right, with the misses."""

    total: int = 0
    right: int = 0
    misses: list[tuple[str, str, str | None]] = field(default_factory=list)

    @property
    def percent(self) -> float:
        return 100.0 * self.right / self.total if self.total else 0.0


def rate(pairs: Iterable[tuple[str, int, str | None]]) -> Rate:
    """Share of (reference, expected article number, resolved id) under the right article.

    Right means ``article-N`` itself or an id below it (``article-N-...``).
    """
    result = Rate()
    for reference, article, resolved in pairs:
        result.total += 1
        expected = f"article-{article}"
        if resolved is not None and (resolved == expected or resolved.startswith(expected + "-")):
            result.right += 1
        else:
            result.misses.append((reference, expected, resolved))
    return result


def exact_rate(pairs: Iterable[tuple[str, str, str | None]]) -> Rate:
    """Share of (reference, gold id, resolved id) that resolved to exactly the gold id."""
    result = Rate()
    for reference, gold, resolved in pairs:
        result.total += 1
        if resolved == gold:
            result.right += 1
        else:
            result.misses.append((reference, gold, resolved))
    return result


# --------------------------------------------------------------------------- the document

Unit = tuple[int, str, tuple[str, ...]]  # offset in the file, text, context ids

_HEADING = re.compile(r"^(#{2,4})\s+(Chapter|Section|Article)\s+(\w+)", re.IGNORECASE)
_PARAGRAPH = re.compile(r"^(\d+)\.\s")
_POINT = re.compile(r"^\((\w+)\)\s")


def gdpr_units(markdown: str) -> tuple[set[str], list[Unit]]:
    """Known ids and the blocks of text (paragraphs, points) with their contexts."""
    known: set[str] = set()
    units: list[Unit] = []
    chapter = section = article = paragraph = ""
    offset = 0
    for block in markdown.split("\n\n"):
        start, offset = offset, offset + len(block) + 2
        text = block.strip()
        heading = _HEADING.match(text)
        if heading:
            kind, number = heading[2].lower(), heading[3]
            if kind == "chapter":
                chapter, section, article = f"chapter-{roman_to_int(number)}", "", ""
                known.add(chapter)
            elif kind == "section":
                section, article = f"{chapter}-section-{number}", ""
                known.add(section)
            else:
                article, paragraph = f"article-{number}", ""
                known.add(article)
            continue
        if not article or not text or text.startswith("#"):
            continue
        paragraph_match, point_match = _PARAGRAPH.match(text), _POINT.match(text)
        if paragraph_match:
            paragraph = f"{article}-{paragraph_match[1]}"
            known.add(paragraph)
        leaf = paragraph or article
        if point_match and point_match[1] != "None":
            leaf = f"{leaf}-{point_match[1]}"
            known.add(leaf)
        context = tuple(c for c in (chapter, section, article) if c)
        context += tuple(c for c in dict.fromkeys((paragraph, leaf)) if c and c != article)
        units.append((start + block.find(text), text, context))
    return known, units


# --------------------------------------------------------------------------- the gold

_GOLD_GROUP = re.compile(
    r"\bArticles?\s+\d+(?:\(\w+\))*"
    r"(?:(?:(?:,\s*|\s+(?:and|or|to)\s+)(?:\d+|\(\w+\))|\s+(?:and|or)\s+Article\s+\d+)(?:\(\w+\))*)*"
)
_GOLD_NUMBER = re.compile(r"(?:Articles?\s+|,\s*|\s(?:and|or)\s+|\s(?P<to>to)\s+)(?P<n>\d+)")
_GOLD_EXTERNAL = re.compile(r",?\s+of\s+(?!this\b)(?:the\s+|that\s+)?[A-Z]|\s+(?:TFEU|TEU)\b")
_GOLD_SINGLE = re.compile(r"Article\s+(\d+)((?:\(\w+\))*)")
_GOLD_OF = re.compile(r"\bof\s+$")  # "points (a) and (b) of Article 6(1)": no single gold
_GOLD_POINT = re.compile(r"\bpoint\s+\((\w+)\)\s+of\s+(?:the\s+\w+\s+subparagraph\s+of\s+)?$")


@dataclass(frozen=True)
class Mention:
    """A gold citation of one of the GDPR's own articles."""

    offset: int
    article: int
    exact: tuple[str, ...] | None  # the parts, where the citation names one target


def gold_mentions(text: str) -> Iterator[Mention]:
    for group in _GOLD_GROUP.finditer(text):
        if _GOLD_EXTERNAL.match(text, group.end()):
            continue
        single = _GOLD_SINGLE.fullmatch(group[0])
        exact = None
        point = _GOLD_POINT.search(text, 0, group.start())
        if single and (point or not _GOLD_OF.search(text, 0, group.start())):
            tail = (point[1],) if point else ()
            exact = (single[1], *re.findall(r"\((\w+)\)", single[2]), *tail)
        previous = None
        for number in _GOLD_NUMBER.finditer(group[0]):
            value, offset = int(number["n"]), group.start() + number.start("n")
            if number["to"] and previous is not None:
                for between in range(previous + 1, value):
                    yield Mention(offset, between, None)
            yield Mention(offset, value, exact)
            previous = value


def gold_id(parts: tuple[str, ...], known: set[str]) -> str | None:
    for depth in range(len(parts), 0, -1):
        candidate = "-".join(("article", *parts[:depth]))
        if candidate in known:
            return candidate
    return None


# --------------------------------------------------------------------------- the run


@dataclass
class Counts:
    found: int = 0
    spans: int = 0
    internal_article: int = 0
    external: int = 0
    relative: int = 0
    relative_inside: int = 0
    article_pairs: list[tuple[str, int, str | None]] = field(default_factory=list)
    exact_pairs: list[tuple[str, str, str | None]] = field(default_factory=list)


def measure(markdown: str) -> Counts:
    known, units = gdpr_units(markdown)
    counts = Counts()
    for _, text, context in units:
        found = find_references(text)
        _count_found(counts, found, context, known)
        internal = [r for r in found if not r.external]
        for mention in gold_mentions(text):
            covering = [r for r in internal if r.start <= mention.offset < r.end]
            resolved = _best(covering, context, known, mention.article)
            shown = covering[0].text if covering else _around(text, mention.offset)
            counts.article_pairs.append((shown, mention.article, resolved))
            gold = gold_id(mention.exact, known) if mention.exact else None
            if gold:
                counts.exact_pairs.append((shown, gold, resolved))
    return counts


def _count_found(
    counts: Counts, found: list[FoundReference], context: tuple[str, ...], known: set[str]
) -> None:
    counts.found += len(found)
    counts.spans += len({(r.start, r.end) for r in found})
    counts.external += sum(r.external for r in found)
    counts.internal_article += sum(
        1 for r in found if r.candidate_ids and r.candidate_ids[-1].startswith("article-")
    )
    article = next((c for c in context if c.startswith("article-")), "")
    for ref in found:
        if ref.relative:
            counts.relative += 1
            target = resolve(ref, context, known) or ""
            counts.relative_inside += target.startswith(f"{article}-")


def _best(
    covering: list[FoundReference], context: tuple[str, ...], known: set[str], article: int
) -> str | None:
    """Of the targets of the reference over a mention, the one for the expected article."""
    resolved = [resolve(r, context, known) for r in covering]
    wanted = f"article-{article}"
    right = [i for i in resolved if i and (i == wanted or i.startswith(wanted + "-"))]
    return right[0] if right else next((i for i in resolved if i), None)


def _around(text: str, offset: int) -> str:
    return "…" + text[max(0, offset - 30) : offset + 20].replace("\n", " ") + "…"


def report(counts: Counts, examples: int) -> str:
    article, exact = rate(counts.article_pairs), exact_rate(counts.exact_pairs)
    relative = 100.0 * counts.relative_inside / counts.relative if counts.relative else 0.0
    lines = [
        "| measure | value |",
        "| --- | --- |",
        f"| references found (targets / written spans) | {counts.found} / {counts.spans} |",
        f"| internal article references found | {counts.internal_article} |",
        f"| gold citations of the GDPR's own articles | {article.total} |",
        f"| resolved to the right article | {article.right} ({article.percent:.1f}%) |",
        f"| resolved to the exact gold id (where derivable) | {exact.right} / {exact.total} "
        f"({exact.percent:.1f}%) |",
        f"| external references found | {counts.external} |",
        f"| relative references resolved inside their article | {counts.relative_inside} / "
        f"{counts.relative} ({relative:.1f}%) |",
    ]
    misses = article.misses[:examples] + exact.misses[:examples]
    if misses:
        lines += ["", "Misses (reference, expected, resolved):", ""]
        lines += [f"- `{text}` → expected `{want}`, got `{got}`" for text, want, got in misses]
    return "\n".join(lines)


def measure_pipeline(path: Path) -> Rate:
    """The same rate over the references hierdoc's own pipeline stores for a file.

    Runs convert, structure, chunk and extract exactly as ``hierdoc ingest`` does
    (no embedding). Each internal reference whose text names GDPR articles is
    right when it resolved to one of those articles or below.
    """
    from hierdoc.pipeline.chunk import chunk_document
    from hierdoc.pipeline.convert import convert_file
    from hierdoc.pipeline.extract.document import extract_document
    from hierdoc.pipeline.structure import parse_sections
    from hierdoc.text.tokenizer import default_tokenizer

    document = convert_file(path)
    sections = parse_sections(document.text, document.title)
    chunks = chunk_document(document, sections, default_tokenizer())
    _, extraction = extract_document(sections, chunks)
    spans: dict[tuple[str, str], list[str | None]] = {}
    for ref in extraction.references:
        if not ref.external:
            spans.setdefault((ref.chunk_id, ref.text), []).append(ref.target_section_id)
    pairs = []
    for (_, text), targets in spans.items():
        for article in dict.fromkeys(m.article for m in gold_mentions(text)):
            wanted = f"article-{article}"
            right = [t for t in targets if t and (t == wanted or t.startswith(wanted + "-"))]
            pairs.append((text, article, right[0] if right else next(filter(None, targets), None)))
    return rate(pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=default_datasets())
    parser.add_argument("--examples", type=int, default=8, help="misses to show")
    args = parser.parse_args()
    source = args.datasets / "gdpr" / "gdpr.md"
    if not source.exists():
        raise SystemExit(f"dataset not found: {source} (use --datasets or HIERDOC_DATASETS)")
    print(f"# Cross-reference rate: {source.name}\n")
    print("## The grammar, over every paragraph and point\n")
    print(report(measure(source.read_text(encoding="utf-8")), args.examples))
    print("\n## The references hierdoc's pipeline stores (convert, structure, chunk, extract)\n")
    print("| file | internal references naming GDPR articles | resolved to the right article |")
    print("| --- | ---: | ---: |")
    for name in ("gdpr.md", "gdpr.txt"):
        result = measure_pipeline(args.datasets / "gdpr" / name)
        print(f"| {name} | {result.total} | {result.right} ({result.percent:.1f}%) |")


if __name__ == "__main__":
    main()
