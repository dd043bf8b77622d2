"""Rule numbers as section ids on the 40 ADGM rulebooks and guidance documents of ObliQA.

    python benchmarks/obliqa_structure.py                 # structure, all 40 documents
    python benchmarks/obliqa_structure.py --citations 300 # and 300 citation queries
    python benchmarks/obliqa_structure.py --misses 5      # a few misses per document
    python benchmarks/obliqa_structure.py --questions 300 --embedder minilm

The documents are plain text (``$HIERDOC_DATASETS/obliqa/documents``); the authors' passages
files give every passage's number ("5.3.6", "2.1.1.(1)", "1.2.Guidance.1.", "Part 12.Chapter
1.134.", "APP1.A1.1.1", "SECTION VIII.C.1.", "26)") and text: a gold tree.

* **structure**: each non-empty gold passage is found in the converted text (its first line
  of text after the previous passage's place), and the section that holds that place is
  read (or, when the passage's first line is not in the text as written and a later one
  was found, the section or one of its ancestors). It is right when the section id, its
  kind words left out (``section``, ``rule``, ``part``...), ends with the passage's number
  after its containers ("Part 12.Chapter 1."
  and "PART 2." are containers; "Guidance" is kept): ``section-134`` for "Part 12.Chapter
  1.134.", ``section-2-1-1-1-guidance-1`` for "2.1.1.(1).Guidance.1.".
* **citations**: queries generated from gold rule numbers of the rulebooks that have a short
  name ("GEN", "COBS"), in five spellings ("Rule 5.3.6 of GEN", "GEN 5.3.6", "5.3.6 of GEN",
  "Rule 5.3.6", "section 5.3.6"; the last two searched in the document alone), and guidance
  notes ("Guidance 2 under Rule 5.3.6 of GEN"), ingested with the hash
  stand-in embedder (citations do not depend on the model). Top-1 is right when the first
  result is in the document and holds the rule's text.
* **references**: cross-references written "Rule 5.5.4" / "Rules 2.1.2 and 2.1.3" that
  the extraction finds, and how many resolve to a section of their document.
* **questions**: dev questions (all 40 documents in one index, hybrid search): the first
  result's section id is a gold passage's number, or the first result holds a gold passage.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.hash_embedder

from hierdoc.eval.datasets import default_datasets  # noqa: E402
from hierdoc.models import Section  # noqa: E402
from hierdoc.pipeline.convert import convert_file  # noqa: E402
from hierdoc.pipeline.limits import Limits  # noqa: E402
from hierdoc.pipeline.structure import parse_sections  # noqa: E402
from hierdoc.text.numbering import roman_to_int  # noqa: E402

CONTAINERS = re.compile(
    r"^(?:part|chapter|schedule|app(?:endix)?|annex)\s*[0-9ivxlc]*[a-z]?:?$", re.IGNORECASE
)
KIND_WORDS = frozenset(
    {"section", "rule", "part", "chapter", "schedule", "appendix", "annex", "article"}
    | {"paragraph", "clause", "title"}
)
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")


def squash(text: str) -> str:
    """Text compared without invisible marks and with whitespace collapsed."""
    return " ".join(_INVISIBLE.sub("", text).split())


def gold_tokens(passage_id: str) -> list[str]:
    """The number a section id must end with: "Part 12.Chapter 1.134." -> ["134"],
    "2.1.1.(1).Guidance.1." -> ["2", "1", "1", "1", "guidance", "1"], "26)" -> ["26"]."""
    parts = [p.strip() for p in passage_id.strip().rstrip(".").split(".") if p.strip()]
    while len(parts) > 1 and CONTAINERS.match(parts[0]):
        parts = parts[1:]
    tokens: list[str] = []
    for part in parts:
        words = [t for t in re.split(r"[^0-9A-Za-z]+", part.lower()) if t]
        if len(words) == 2 and words[0] in KIND_WORDS and roman_to_int(words[1].upper()):
            words[1] = str(roman_to_int(words[1].upper()))  # "SECTION VIII" is section 8
        tokens += [t for t in words if t not in KIND_WORDS]
    return tokens


def id_tokens(section_id: str) -> list[str]:
    return [t for t in section_id.split("-") if t not in KIND_WORDS]


def matches(section_id: str, wanted: list[str]) -> bool:
    tokens = id_tokens(section_id)
    return bool(wanted) and tokens[-len(wanted) :] == wanted


@dataclass
class Located:
    passage_id: str
    wanted: list[str]
    section_id: str | None
    probe: str
    above: tuple[str, ...] = ()
    """The section's ancestors, when the passage was found by a later line than its first
    (its first is not in the text as written): the passage's rule is then one of them."""

    @property
    def right(self) -> bool:
        ids = [self.section_id or "", *self.above]
        return any(matches(i, self.wanted) for i in ids)


def section_starts(sections: list[Section]) -> list[int]:
    starts, offset = [], 0
    for section in sections:
        starts.append(offset)
        offset += len(section.heading_line) + len(section.body)
    return starts


class Squashed:
    """The document's text squashed (see :func:`squash`), with each character's offset
    in the original text."""

    def __init__(self, text: str) -> None:
        chars, offsets, space = [], [], True
        for offset, char in enumerate(text):
            if _INVISIBLE.match(char):
                continue
            if char.isspace():
                if space:
                    continue
                char, space = " ", True
            else:
                space = False
            chars.append(char)
            offsets.append(offset)
        self.text, self.offsets = "".join(chars), offsets


def probes(passage: str, shared: Counter) -> list[str]:
    """Lines of a passage to look for, each its first 60 characters; lines that several
    passages repeat (the headings some guidance documents copy into each paragraph) last."""
    lines = [squash(line)[:60] for line in passage.splitlines()]
    lines = [line for line in lines if len(line) >= 12]
    return [x for x in lines if shared[x] <= 1] + [x for x in lines if shared[x] > 1]


def locate(text: str, sections: list[Section], gold: list[dict]) -> list[Located]:
    squashed = Squashed(text)
    starts = section_starts(sections)
    shared = Counter(
        line for p in gold for line in {squash(x)[:60] for x in p["Passage"].splitlines()}
    )
    cursor, found = 0, []
    for passage in gold:
        if not passage["Passage"].strip():
            continue
        place, probe = -1, ""
        for probe in probes(passage["Passage"], shared):
            place = squashed.text.find(probe, cursor)
            if place >= 0:
                break
        section_id, above = None, ()
        if place >= 0:
            cursor = place + 1
            offset = squashed.offsets[place]
            index = max(i for i, start in enumerate(starts) if start <= offset)
            section_id = sections[index].section_id
            first = probes(passage["Passage"], Counter())[:1] == [probe]
            above = () if first else sections[index].path
        wanted = gold_tokens(passage["PassageID"])
        found.append(Located(passage["PassageID"], wanted, section_id, probe, above))
    return found


def load(dataset: Path) -> list[tuple[str, Path, str | None, list[dict]]]:
    document_map = json.loads((dataset / "document_map.json").read_text())
    docs = []
    for key in sorted(document_map, key=int):
        entry = document_map[key]
        gold = json.loads((dataset / "passages" / f"{key}.json").read_text())
        docs.append((key, dataset / "documents" / entry["file"], entry.get("short_name"), gold))
    return docs


def references(docs) -> None:
    """Cross-references written "Rule(s) N" in the documents: found, and resolved to a
    section of the same document."""
    from hierdoc.config import IngestSettings
    from hierdoc.pipeline.chunk import chunk_document
    from hierdoc.pipeline.extract.document import extract_document
    from hierdoc.text.tokenizer import default_tokenizer

    found = resolved = 0
    for _key, path, _short, _gold in docs:
        document = convert_file(path, str(path), Limits())
        sections = parse_sections(document.text, document.title)
        chunks = chunk_document(
            document, sections, default_tokenizer(), IngestSettings(), sentences=False
        )
        _, extraction = extract_document(sections, chunks)
        rules = [r for r in extraction.references if r.text.lower().startswith("rule")]
        found += len(rules)
        resolved += sum(r.resolved for r in rules)
    print(f"\n'Rule N' cross-references: {found} found, {resolved} resolved")


def structure(docs, misses: int) -> dict[str, list[Located]]:
    results = {}
    print(f"{'doc':>3} {'short':6} {'passages':>8} {'found':>6} {'right':>6}  document")
    total = Counter()
    for key, path, short, gold in docs:
        document = convert_file(path, str(path), Limits())
        sections = parse_sections(document.text, document.title)
        located = locate(document.text, sections, gold)
        found = [x for x in located if x.section_id is not None]
        right = [x for x in found if x.right]
        total.update(passages=len(located), found=len(found), right=len(right))
        share = len(right) / max(1, len(located))
        counts = f"{len(located):8} {len(found):6} {share:6.1%}"
        print(f"{key:>3} {short or '':6} {counts}  {path.name[:60]}")
        for miss in [x for x in found if x not in right][:misses]:
            print(f"      {miss.passage_id!r:32} in {miss.section_id}")
        results[key] = located
    right, passages = total["right"], total["passages"]
    print(
        f"\nall: {right}/{passages} = {right / passages:.1%} of gold passages in a section whose "
        f"id is their number ({total['found']} located in the text)"
    )
    return results


_RULE_ID = re.compile(r"^\d+(?:\.\d+[A-Z]?)+(?:\.\(\w+\))*\.?$")
_GUIDANCE_ID = re.compile(r"^(?P<rule>\d+(?:\.\d+[A-Z]?)+)\.Guidance\.(?P<note>\d+)\.?$")
FORMS = ("Rule {n} of {d}", "{d} {n}", "Rule {n}", "section {n}", "{n} of {d}")
GUIDANCE_FORM = "Guidance {g} under Rule {n} of {d}"


def citation_queries(docs, count: int, seed: int = 26) -> list[tuple[str, str, str, str]]:
    """(query, form, document key, probe) for ``count`` gold rules of named rulebooks."""
    candidates, notes = [], []
    for key, _path, short, gold in docs:
        if not short:
            continue
        for passage in gold:
            number = passage["PassageID"].strip()
            lines = probes(passage["Passage"], Counter())
            if _RULE_ID.match(number) and lines:
                cited = re.sub(r"\.\(", "(", number).rstrip(".")
                candidates.append((key, short, cited, lines[0]))
            elif (note := _GUIDANCE_ID.match(number)) and lines:
                notes.append((key, short, note["rule"], note["note"], lines[0]))
    rng = random.Random(seed)
    chosen = rng.sample(candidates, min(count, len(candidates)))
    queries = []
    for position, (key, short, number, probe) in enumerate(chosen):
        form = FORMS[position % len(FORMS)]
        queries.append((form.format(n=number, d=short), form, key, probe))
    for key, short, rule, note, probe in rng.sample(notes, min(count // len(FORMS), len(notes))):
        queries.append((GUIDANCE_FORM.format(g=note, n=rule, d=short), GUIDANCE_FORM, key, probe))
    return queries


def citations(index, by_key: dict[str, str], docs, count: int, show_misses: int = 0) -> None:
    queries = citation_queries(docs, count)
    right, shown = Counter(), 0
    for query, form, key, probe in queries:
        source = by_key[key] if "{d}" not in form else None
        results = index.search(query, top_k=1, source=source).results
        ok = (
            bool(results)
            and results[0].source == by_key[key]
            and probe in squash(results[0].content)
        )
        right.update({form: ok, f"{form} (n)": 1})
        if not ok and shown < show_misses:
            shown += 1
            got = f"{results[0].source[-30:]} {results[0].section_id}" if results else "nothing"
            print(f"  miss: {query!r} -> {got}")
    print("citation top-1:")
    total = 0
    for form in sorted(k for k in right if not k.endswith("(n)")):
        total += right[form]
        print(f"  {form:16} {right[form]}/{right[form + ' (n)']}")
    print(f"  all              {total}/{len(queries)} = {total / len(queries):.1%}")


def questions(index, by_key: dict[str, str], dataset: Path, count: int, seed: int = 26) -> None:
    """The first result for ``count`` dev questions: in a gold passage's document, with a
    section id that is the passage's number, or with the passage's text in it."""
    asked = json.loads((dataset / "dev.json").read_text())
    asked = random.Random(seed).sample(asked, min(count, len(asked)))
    by_id = right_id = holds = 0
    for question in asked:
        gold = [p for p in question["Passages"] if str(p["DocumentID"]) in by_key]
        if not gold:
            continue
        results = index.search(question["Question"], top_k=1).results
        if not results:
            continue
        first = results[0]
        mine = [p for p in gold if by_key[str(p["DocumentID"])] == first.source]
        by_id += 1
        right_id += any(matches(first.section_id, gold_tokens(p["PassageID"])) for p in mine)
        holds += any(
            (lines := probes(p["Passage"], Counter())) and lines[0] in squash(first.content)
            for p in mine
        )
    print(
        f"dev questions ({by_id}): first result's section id is a gold passage's number "
        f"{right_id / by_id:.1%}; first result holds a gold passage {holds / by_id:.1%}"
    )


def indexed(docs, embedder_name: str, folder: Path):
    """An index of ``docs`` and each document key's source."""
    from hierdoc import Index
    from hierdoc.pipeline.embed import LocalEmbedder
    from tests.hash_embedder import HashEmbedder

    embedder = LocalEmbedder() if embedder_name == "minilm" else HashEmbedder()
    index = Index.open(folder, embedder=embedder)
    started = time.perf_counter()
    index.ingest([path for _, path, _, _ in docs])
    print(
        f"\ningested {len(docs)} documents in {time.perf_counter() - started:.0f} s "
        f"({embedder_name} embedder)"
    )
    sources = [d.source for d in index.documents()]
    by_key = {key: next(s for s in sources if s.endswith(path.name)) for key, path, _, _ in docs}
    return index, by_key


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", type=Path, default=default_datasets() / "obliqa")
    parser.add_argument("--misses", type=int, default=0)
    parser.add_argument("--citations", type=int, default=0)
    parser.add_argument("--references", action="store_true", help="count 'Rule N' references")
    parser.add_argument("--questions", type=int, default=0, help="dev questions to ask")
    parser.add_argument("--embedder", choices=("hash", "minilm"), default="hash")
    parser.add_argument("--doc", action="append", help="document keys (1-40) to measure")
    args = parser.parse_args()
    docs = load(args.dataset)
    if args.doc:
        docs = [d for d in docs if d[0] in args.doc]
    structure(docs, args.misses)
    if args.references:
        references(docs)
    if not (args.citations or args.questions):
        return
    with tempfile.TemporaryDirectory() as folder:
        index, by_key = indexed(docs, args.embedder, Path(folder))
        if args.citations:
            citations(index, by_key, docs, args.citations, args.misses)
        if args.questions:
            questions(index, by_key, args.dataset, args.questions)
        index.close()


if __name__ == "__main__":
    main()
