"""The labelled corpus of ``benchmarks/structure.py``: real documents with a gold file each.

A corpus folder holds ``manifest.json`` (a list of entries) and the files it names::

    {"id": "rfc-9110", "format": "txt", "publisher": "IETF", "title": "HTTP Semantics",
     "source": "https://github.com/...", "licence": "...", "rendering": "how the input was made",
     "input": "documents/rfc-9110.txt", "gold": "gold/rfc-9110.json"}

A gold file gives what the structured source says of the document::

    {"sections": [{"id": "section-3-1", "number": "3.1", "heading": "Title",
                   "parent": "section-3"}],
     "definitions": [{"term": "Term", "text": "what it means"}],      # null: not measured
     "references": [{"from": "section-3-1", "to": "section-9-2"}],    # null: not measured
     "citations": [{"query": "Section 3.1 of Title", "section": "section-3-1"}]}

Section ids are hierdoc's canonical ids (``hierdoc.text.numbering``): a bare outline
number is a section (``3.1.2`` -> ``section-3-1-2``), parenthesised parts extend it
(``2.1.1(1)`` -> ``section-2-1-1-1``), a kind keeps its name (``article-17``,
``appendix-a``). ``parent`` is the nearest enclosing gold section (None at the top).
``heading`` is the title without the number (None when the source gives none).

The 40 ObliQA documents (ADGM rulebooks and guidance, plain text) are read in place from
``hierdoc.eval.datasets.default_datasets() / "obliqa"``, never copied; their gold comes from
the passages files beside them (see :func:`obliqa_documents`).
"""

from __future__ import annotations

import contextlib
import json
import re
import tarfile
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from hierdoc.eval.datasets import default_datasets
from hierdoc.text.numbering import roman_to_int


@dataclass(frozen=True)
class GoldSection:
    id: str
    number: str
    heading: str | None
    parent: str | None


@dataclass(frozen=True)
class GoldDefinition:
    term: str
    text: str


@dataclass(frozen=True)
class GoldReference:
    origin: str
    target: str


@dataclass(frozen=True)
class GoldCitation:
    query: str
    section: str


@dataclass(frozen=True)
class LabelledDocument:
    """One document of the corpus with its gold lists (None: not measured)."""

    id: str
    format: str
    publisher: str
    title: str
    source: str
    licence: str
    rendering: str
    document: Path
    sections: tuple[GoldSection, ...]
    definitions: tuple[GoldDefinition, ...] | None
    references: tuple[GoldReference, ...] | None
    citations: tuple[GoldCitation, ...]


def gold_lists(data: dict) -> dict:
    """The gold lists of a gold file's JSON, as the fields of :class:`LabelledDocument`."""
    definitions = data.get("definitions")
    references = data.get("references")
    return {
        "sections": tuple(
            GoldSection(s["id"], s.get("number", ""), s.get("heading"), s.get("parent"))
            for s in data["sections"]
        ),
        "definitions": None
        if definitions is None
        else tuple(GoldDefinition(d["term"], d["text"]) for d in definitions),
        "references": None
        if references is None
        else tuple(GoldReference(r["from"], r["to"]) for r in references),
        "citations": tuple(GoldCitation(c["query"], c["section"]) for c in data["citations"]),
    }


def load_corpus(folder: Path) -> list[LabelledDocument]:
    """Every document a corpus folder's ``manifest.json`` lists."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    documents = []
    for entry in manifest:
        gold = json.loads((folder / entry["gold"]).read_text(encoding="utf-8"))
        documents.append(
            LabelledDocument(
                id=entry["id"],
                format=entry["format"],
                publisher=entry["publisher"],
                title=entry["title"],
                source=entry["source"],
                licence=entry["licence"],
                rendering=entry.get("rendering", ""),
                document=folder / entry["input"],
                **gold_lists(gold),
            )
        )
    return documents


def unpack(archive: Path, cache: Path) -> Path:
    """The archive unpacked once into ``cache`` (again when the archive changes). Each
    version unpacks into a folder of its own, moved into place whole, so that runs at the
    same time never read a half-written corpus."""
    stamp = f"{archive.stat().st_size}-{int(archive.stat().st_mtime)}"
    folder = cache / f"{archive.name.split('.')[0]}-{stamp}"
    if (folder / "manifest.json").is_file():
        return folder
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as partial:
        with tarfile.open(archive) as tar:
            tar.extractall(partial, filter="data")
        with contextlib.suppress(OSError):  # another run put the same version in place first
            Path(partial).rename(folder)
        Path(partial).mkdir(exist_ok=True)  # for the cleanup of the temporary folder
    return folder


# ObliQA: gold from the passages files

OBLIQA_SOURCE = (
    "https://github.com/RegNLP/ObliQADataset/blob/c1b2c3c04aee1f6ce75f76106ce13af672d48e02/"
    "scripts/StandartizedRegulatoryDocumentsTXT/{}"
)
OBLIQA_LICENCE = "Apache-2.0 (dataset card); ADGM / FSRA publications"
#: A rule or paragraph number of a passage: "5.3.6", "2.1.1.(1)", "Part 2.4.(1)",
#: "Part 1.Chapter 1.1.(1)", "PART 1.1.1.1", "26)", "A.3.", "1.(3)".
_PASSAGE_NUMBER = re.compile(
    r"^(?:(?:PART|Part) \d+[A-Z]?\.(?:Chapter \d+[A-Z]?\.)?|APP ?\d+\.(?=A\d))?"
    r"(?P<num>(?:\d+[A-Z]?|[A-Z]\d*)(?:\.\d+[A-Z]?)*)\.?(?P<parens>(?:\.?\([0-9a-zA-Z]{1,6}\))*)\)?$"
)
#: A section of a schedule numbered in Roman: "SECTION VIII.C.1." (``section-8-c-1``, as
#: hierdoc's outline reads a Roman block number).
_ROMAN_SECTION = re.compile(r"^SECTION (?P<roman>[IVX]+)(?P<rest>(?:\.[A-Z0-9]{1,3})*)\.?$")
#: A guidance note under a rule: "1.2.Guidance", "1.2.Guidance.1.", "5.4.1.Guidance.(i)".
_GUIDANCE = re.compile(r"^(?P<rule>.+?)\.Guidance(?:\.\(?(?P<note>[0-9a-z]{1,6})\)?\.?)?$")
#: A Part or an appendix heading passage: "Part 2", "PART 3", "APP 1", "APP12".
_CONTAINER = re.compile(r"^(?:(?P<part>PART|Part) |APP ?)(?P<number>\d+[A-Z]?)$")
#: A rule cited in a passage: "Rule 5.3.6", "Rule \u200e2.2" (a left-to-right mark inside);
#: not a rule of another rulebook ("COBS Rule 2.4.1", "Rule 3.2.1 of COBS").
_RULE_CITED = re.compile(
    r"(?<![A-Z]{2}\s)(?<![A-Z]{3}\s)(?<![A-Z]{4}\s)\bRules?\s*\u200e?(\d+(?:\.\d+)+)\b(?!\.\d)"
    r"(?!\s+(?:of|in)\s+(?:the\s+)?[A-Z]{2,}\b)"
)
#: A section cited in a passage ("section 15(2)", "section 3.3" of a guidance document),
#: not one of another text ("section 15 of FSMR", "section 258 of FSMR", "section 9(5) of
#: FSMR", "section 2.2.1 of the PRMS", "COBS section 3.8"): whole numbers and parentheses,
#: so that "section 258" is never read as "section 25", nor "section 2.2.1" as "section 2",
#: to leave out the "of".
_SECTION_CITED = re.compile(
    r"(?<![A-Z]{2}\s)(?<![A-Z]{3}\s)(?<![A-Z]{4}\s)"
    r"\bsection\s+(\d+[A-Z]?(?:\.\d+[A-Z]?)*)(?![\dA-Z]|\.\d)((?:\([0-9a-z]{1,4}\))*)"
    r"(?![(\w])(?!\s+of\s)"
)
#: A heading passage: one short line that does not end a sentence.
_HEADING_PASSAGE = re.compile(r"^[^\n]{1,150}$")


def passage_section_id(passage_id: str) -> tuple[str, str] | None:
    """(canonical id, number as printed) of a passage's number; None for block headings
    ("Part 2.Chapter 1", "APP 1") and text ("Part 2.Guidance") that carry no rule number.

    A Part prefix is not part of the number: "PART 2.2.1.11" is rule 2.1.11 of Part 2, as
    the rulebook cites it ("Rule 2.1.11(a)"), like "Part 2.4.(1)" is section 4(1). An
    appendix prefix is not either: "APP1.A1.1.1" is rule A1.1.1. A guidance note keeps
    its printed label under its rule: "1.2.Guidance.1." is ``section-1-2-guidance-1``."""
    roman = _ROMAN_SECTION.match(passage_id.strip())
    if roman:
        parts = [str(roman_to_int(roman["roman"])), *roman["rest"].lower().split(".")[1:]]
        return "section-" + "-".join(parts), passage_id.strip().rstrip(".")
    guidance = _GUIDANCE.match(passage_id.strip())
    if guidance:
        rule = passage_section_id(guidance["rule"])
        if rule is None:
            return None
        note = guidance["note"]
        suffix = f"-guidance-{note.lower()}" if note else "-guidance"
        return rule[0] + suffix, f"{rule[1]}.Guidance" + (f".{note}" if note else "")
    match = _PASSAGE_NUMBER.match(passage_id.strip())
    if not match or _CONTAINER.match(passage_id.strip()):
        return None
    parts = [p for p in match["num"].split(".") if p]
    parts += re.findall(r"\(([0-9a-zA-Z]{1,6})\)", match["parens"] or "")
    number = ".".join(parts[: len(match["num"].split("."))])
    number += "".join(f"({p})" for p in parts[len(match["num"].split(".")) :])
    return "section-" + "-".join(p.lower() for p in parts), number


def passage_container_id(passage_id: str) -> str | None:
    """The id of the Part or appendix a passage heads ("Part 2" -> ``part-2``, "APP 1" ->
    ``appendix-1``) or opens ("PART 2.2.1" -> ``part-2``, "APP1.A1.1" -> ``appendix-1``)."""
    match = re.match(r"^(?:(?P<part>PART|Part) |APP ?)(?P<number>\d+[A-Z]?)\b", passage_id.strip())
    if not match:
        return None
    return ("part-" if match["part"] else "appendix-") + match["number"].lower()


def heading_of(passage: str) -> str | None:
    text = passage.strip()
    if not _HEADING_PASSAGE.match(text) or text[-1] in ".:;,":
        return None
    return text


def nearest_parent(section_id: str, known: dict[str, GoldSection]) -> str | None:
    parts = section_id.split("-")
    for end in range(len(parts) - 1, 1, -1):
        candidate = "-".join(parts[:end])
        if candidate in known:
            return candidate
    return None


def obliqa_sections(passages: list[dict]) -> tuple[list[GoldSection], dict[str, str]]:
    """The gold sections of one document's passages, with the text of each section id.
    Sections implied by a numbered part ("2.1.1" of "2.1.1.(1)") are added untitled, but
    not an appendix's letter ("A1" of "A1.1.1"), which the appendix heading stands for. A
    Part or appendix heading ("Part 2", "APP 1") is a section, the parent of the top
    sections that follow it."""
    sections: dict[str, GoldSection] = {}
    texts: dict[str, str] = {}
    for passage in passages:
        passage_id = passage["PassageID"].strip()
        container = passage_container_id(passage_id)
        if _CONTAINER.match(passage_id) and container not in sections:
            sections[container] = GoldSection(
                container, passage_id, heading_of(passage["Passage"]), None
            )
            continue
        found = passage_section_id(passage_id)
        if found is None or found[0] in sections:
            continue
        section_id, number = found
        enclosing = container if container in sections else None
        for implied in implied_ids(section_id):
            if implied not in sections:
                sections[implied] = GoldSection(
                    implied,
                    ".".join(implied.split("-")[1:]),
                    None,
                    nearest_parent(implied, sections) or enclosing,
                )
        heading = heading_of(passage["Passage"])
        sections[section_id] = GoldSection(
            section_id, number, heading, nearest_parent(section_id, sections) or enclosing
        )
        texts[section_id] = passage["Passage"]
    return list(sections.values()), texts


def implied_ids(section_id: str) -> list[str]:
    """The ids of the sections a section's number implies, outermost first."""
    parts = section_id.split("-")
    implied = ["-".join(parts[:end]) for end in range(2, len(parts))]
    return [i for i in implied if not re.fullmatch(r"section-[a-z]\d+", i)]


def obliqa_references(texts: dict[str, str], known: set[str]) -> list[GoldReference]:
    """Rules ("Rule 2.2") and sections ("section 15(2)") a passage cites that the same
    document holds, each once per citing section."""
    found: dict[tuple[str, str], GoldReference] = {}
    for origin, text in texts.items():
        targets = ["section-" + n.replace(".", "-") for n in _RULE_CITED.findall(text)]
        targets += [
            "section-" + "-".join([n.lower().replace(".", "-"), *re.findall(r"\((\w+)\)", p)])
            for n, p in _SECTION_CITED.findall(text)
        ]
        for target in targets:
            while target not in known and target.count("-") > 1:
                target = target.rsplit("-", 1)[0]
            if target in known and target != origin and not origin.startswith(target + "-"):
                found.setdefault((origin, target), GoldReference(origin, target))
    return list(found.values())


#: A row of the glossary table: a term, a tab, its definition ("Means ...", "Has the ...").
_GLOSSARY_ROW = re.compile(r"^(?P<term>[^\t\n]{1,150})\t(?P<text>[^\n]+)$")
#: A lettered or numbered point of the definition above ("a)", "(iv)", "(A)"), not a term.
_ROW_POINT = re.compile(r"[a-z]{1,4}\)|\(?[a-z0-9]{1,4}\)", re.IGNORECASE)
#: The definition cell of a row whose term stands alone on the line above it.
_ROW_TEXT = re.compile(r"\t|(?:Means|Has the meaning)\b")
#: A term's abbreviation after it in its cell: "International Financial Reporting
#: Standards (IFRS)" defines "International Financial Reporting Standards".
_TERM_ABBREVIATION = re.compile(r"\s*\([A-Za-z]{2,8}\)$")


def glossary_rows(table: str) -> list[tuple[str, str]]:
    """(term, definition) of each row of a glossary table's text: the lines after a row
    that open no row of their own (its lettered points, its wrapped lines) continue its
    definition; a term alone on its line is the term of a row whose text opens the next
    line (after a tab, an empty first cell, or with "Means" / "Has the meaning")."""
    rows: list[list[str]] = []
    lines = table.splitlines()
    for position, line in enumerate(lines):
        row = _GLOSSARY_ROW.match(line)
        following = lines[position + 1] if position + 1 < len(lines) else ""
        if row and row["term"].strip() and not _ROW_POINT.fullmatch(row["term"].strip()):
            rows.append([row["term"].strip(), row["text"].strip()])
        elif "\t" not in line and line.strip() and _ROW_TEXT.match(following):
            rows.append([line.strip(), ""])
        elif rows and line.strip():
            rows[-1][1] = f"{rows[-1][1]} {' '.join(line.split())}".strip()
    return [(_TERM_ABBREVIATION.sub("", term), text) for term, text in rows]


def obliqa_definitions(passages: list[dict]) -> list[GoldDefinition]:
    """The rows of the glossary tables ("Defined Terms | Definitions") of a document."""
    found: dict[str, GoldDefinition] = {}
    for passage in passages:
        text = passage["Passage"]
        for table in re.findall(r"Defined Terms\tDefinitions\n(.*?)(?:/Table End|$)", text, re.S):
            for term, definition in glossary_rows(table):
                found.setdefault(term, GoldDefinition(term, definition))
    return list(found.values())


def obliqa_citations(
    sections: list[GoldSection], short_name: str | None, title: str, count: int = 5
) -> list[GoldCitation]:
    """Up to ``count`` "Rule 5.3.6 of GEN" queries, spread over the document's numbered
    rules of three or more parts ("Section 15 of <title>" for Regulations' sections)."""
    rules = [s for s in sections if re.fullmatch(r"\d+(?:\.\d+){2,}", s.number)]
    name = short_name or title
    kind = "Rule"
    if not rules:
        top = [s for s in sections if s.parent is None or s.parent.startswith("part-")]
        rules = [s for s in top if s.number.isdigit()]
        kind = "Section"
    if not rules:
        return []
    step = max(1, len(rules) // count)
    return [GoldCitation(f"{kind} {s.number} of {name}", s.id) for s in rules[::step][:count]]


def obliqa_documents(datasets: Path | None = None) -> list[LabelledDocument]:
    """The 40 ObliQA documents with gold from their passages files ([] when absent).

    Sections: every passage whose number is a rule or paragraph number ("5.3.6",
    "2.1.1.(1)", "Part 2.4.(1)", "APP1.A1.1.1", "26)"), with the rules its number implies
    ("2.1.1"); the guidance notes under a rule ("1.2.Guidance.1."); the Part and appendix
    headings ("Part 2", "APP 1"). Chapter headings of Regulations ("Part 2.Chapter 1")
    have no number of their own and are left out. A passage of one short line is its
    section's title. Definitions: the rows of the glossary tables (GLO).
    References: "Rule 2.2" and "section 15(2)" in a passage, to a section the document
    holds; not those of another text ("COBS Rule 2.4.1", "Rule 3.2.1 of COBS", "section 58
    of FSMR"). Citations: "Rule 5.3.6 of GEN", "Section 15 of FSMR"; a document whose short
    name another shares ("CRS": 15 and 40) is cited by its title."""
    folder = (datasets or default_datasets()) / "obliqa"
    if not (folder / "document_map.json").is_file():
        return []
    mapping = json.loads((folder / "document_map.json").read_text(encoding="utf-8"))
    shared = Counter(entry["short_name"] for entry in mapping.values())
    documents = []
    for number, entry in sorted(mapping.items(), key=lambda item: int(item[0])):
        short = entry["short_name"] if shared[entry["short_name"]] == 1 else None
        passages = json.loads((folder / "passages" / f"{number}.json").read_text(encoding="utf-8"))
        sections, texts = obliqa_sections(passages)
        known = {s.id for s in sections}
        definitions = obliqa_definitions(passages)
        documents.append(
            LabelledDocument(
                id=f"obliqa-{int(number):02d}-{entry['short_name'] or 'guidance'}".lower(),
                format="txt",
                publisher="ADGM",
                title=entry["title"],
                source=OBLIQA_SOURCE.format(entry["file"].replace(" ", "%20")),
                licence=OBLIQA_LICENCE,
                rendering="as published by ObliQA (the authors' text of the ADGM PDF)",
                document=folder / "documents" / entry["file"],
                sections=tuple(sections),
                definitions=tuple(definitions) if definitions else None,
                references=tuple(obliqa_references(texts, known)),
                citations=tuple(obliqa_citations(sections, short, entry["title"])),
            )
        )
    return documents
