"""Word's styles and list numbering, as the numbers a reader sees.

:class:`Numbering` renders each numbered paragraph's label as Word shows it:
``w:numPr`` on the paragraph or inherited from its style (the level found
through ``w:pStyle`` when the style gives none), the level's ``w:lvlText``
("%1.%2", "(%3)", "ARTICLE %1"), ``w:numFmt`` (decimal, decimalZero,
lower/upperLetter, lower/upperRoman, ordinal), ``w:isLgl``, ``w:start``,
``w:lvlRestart`` and ``w:lvlOverride``/``w:startOverride``. Counters belong to
the abstract list, so every ``w:num`` of one list continues its count unless it
restarts it; a list defined through ``w:numStyleLink`` counts with the list it
links to.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..text.numbering import int_to_roman

_PLACEHOLDER = re.compile(r"%[1-9]")
_WORD = re.compile(r"[A-Za-z]{2,}")
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def w(tag: str) -> str:
    """The Clark name of a WordprocessingML tag: ``w("p")``."""
    return f"{{{W_NS}}}{tag}"


def val(element: Any, tag: str) -> str | None:
    """The ``w:val`` of the child ``tag`` of ``element``, or None."""
    if element is None:
        return None
    child = element.find(w(tag))
    return None if child is None else child.get(w("val"))


def on(element: Any, tag: str) -> bool | None:
    """A toggle property (``w:b``, ``w:i``): None when absent."""
    if element is None:
        return None
    child = element.find(w(tag))
    if child is None:
        return None
    return child.get(w("val"), "true").lower() not in ("0", "false", "off", "none")


# --------------------------------------------------------------------------- styles


@dataclass(frozen=True)
class _Style:
    name: str
    based_on: str | None
    num_id: str | None
    ilvl: int | None
    outline: int | None
    bold: bool | None
    italic: bool | None


class Styles:
    """Paragraph and character styles by id, with ``w:basedOn`` inheritance."""

    def __init__(self, root: Any) -> None:
        self._styles: dict[str, _Style] = {}
        for element in [] if root is None else root.iter(w("style")):
            ppr, rpr = element.find(w("pPr")), element.find(w("rPr"))
            num_pr = None if ppr is None else ppr.find(w("numPr"))
            ilvl = val(num_pr, "ilvl")
            outline = val(ppr, "outlineLvl")
            self._styles[element.get(w("styleId"), "")] = _Style(
                val(element, "name") or "",
                val(element, "basedOn"),
                val(num_pr, "numId"),
                int(ilvl) if ilvl and ilvl.isdigit() else None,
                int(outline) if outline and outline.isdigit() else None,
                on(rpr, "b"),
                on(rpr, "i"),
            )

    def chain(self, style_id: str | None) -> Iterator[_Style]:
        """The style and the styles it is based on, nearest first."""
        yield from (self._styles[i] for i in self.chain_ids(style_id))

    def chain_ids(self, style_id: str | None) -> list[str]:
        """Ids of the style and the styles it is based on, nearest first."""
        ids: list[str] = []
        while style_id and style_id in self._styles and style_id not in ids:
            ids.append(style_id)
            style_id = self._styles[style_id].based_on
        return ids

    def name(self, style_id: str | None) -> str:
        """The style's name; its id when styles.xml does not define it ("Heading1")."""
        return next((s.name for s in self.chain(style_id)), style_id or "")

    def first(self, style_id: str | None, attribute: str) -> Any:
        """The nearest non-None value of ``attribute`` along the chain."""
        return next(
            (v for s in self.chain(style_id) if (v := getattr(s, attribute)) is not None), None
        )


# --------------------------------------------------------------------------- numbering


@dataclass(frozen=True)
class _Level:
    fmt: str = "decimal"
    text: str = ""
    start: int = 1
    restart: int | None = None
    is_legal: bool = False
    pstyle: str | None = None


def _level(element: Any) -> _Level:
    start = val(element, "start")
    restart = val(element, "lvlRestart")
    return _Level(
        val(element, "numFmt") or "decimal",
        val(element, "lvlText") or "",
        int(start) if start and start.lstrip("-").isdigit() else 1,
        int(restart) if restart and restart.isdigit() else None,
        bool(on(element, "isLgl")),
        val(element, "pStyle"),
    )


class ListLabel(NamedTuple):
    """The number a paragraph shows, with its list level."""

    text: str
    level: _Level
    ilvl: int
    outline: bool
    """The list numbers clauses, not items: see :meth:`_Num.is_outline`."""


@dataclass
class _Num:
    abstract: str
    levels: dict[int, _Level]
    starts: dict[int, int] = field(default_factory=dict)
    """``w:startOverride`` per level: where this instance restarts its list."""
    used: bool = False

    def is_outline(self) -> bool:
        """Whether the list numbers a document's clauses rather than items of a list: a
        level shows its parents' numbers ("%1.%2"), a word ("Article %1") or is tied to
        a style. Word's plain numbered list ("%1.", then "%2." in letters) is none of these."""
        return any(
            len(_PLACEHOLDER.findall(level.text)) > 1
            or _WORD.search(_PLACEHOLDER.sub("", level.text))
            or level.pstyle
            for level in self.levels.values()
        )


class Numbering:
    """Word's list numbering: the label each numbered paragraph shows, in reading order."""

    def __init__(self, root: Any, styles: Styles) -> None:
        self._styles = styles
        abstracts: dict[str, dict[int, _Level]] = {}
        links: dict[str, str] = {}
        for element in [] if root is None else root.iter(w("abstractNum")):
            key = element.get(w("abstractNumId"), "")
            abstracts[key] = {
                int(lvl.get(w("ilvl"), "0")): _level(lvl) for lvl in element.iter(w("lvl"))
            }
            if link := val(element, "numStyleLink"):
                links[key] = link
        self._nums: dict[str, _Num] = {}
        for element in [] if root is None else root.iter(w("num")):
            self._nums[element.get(w("numId"), "")] = self._num(element, abstracts)
        for num in self._nums.values():
            self._follow_style_link(num, links, abstracts)
        self._counters: dict[str, dict[int, int]] = {}

    @staticmethod
    def _num(element: Any, abstracts: dict[str, dict[int, _Level]]) -> _Num:
        abstract = val(element, "abstractNumId") or ""
        num = _Num(abstract, dict(abstracts.get(abstract, {})))
        for override in element.iter(w("lvlOverride")):
            ilvl = int(override.get(w("ilvl"), "0"))
            if (lvl := override.find(w("lvl"))) is not None:
                num.levels[ilvl] = _level(lvl)
            start = val(override, "startOverride")
            if start and start.lstrip("-").isdigit():
                num.starts[ilvl] = int(start)
        return num

    def _follow_style_link(
        self, num: _Num, links: dict[str, str], abstracts: dict[str, dict[int, _Level]]
    ) -> None:
        """A list defined as "use the list of style X" (``w:numStyleLink``) takes X's list."""
        link = links.get(num.abstract)
        target = self._nums.get(self._styles.first(link, "num_id") or "")
        if link and target is not None and target is not num and target.abstract not in links:
            num.abstract = target.abstract
            num.levels = {**abstracts.get(target.abstract, {}), **num.levels}

    def label(self, ppr: Any, style_id: str | None) -> ListLabel | None:
        """The number this paragraph shows and its level, advancing the counters."""
        num_id, ilvl = self._num_of(ppr, style_id)
        num = self._nums.get(num_id or "")
        if num is None or num_id == "0":
            return None
        if ilvl is None:
            ilvl = self._level_of_style(num, style_id)
        level = num.levels.get(ilvl)
        if level is None:
            return None
        counters = self._advance(num, ilvl)
        return ListLabel(self._render(num, ilvl, counters), level, ilvl, num.is_outline())

    def _level_of_style(self, num: _Num, style_id: str | None) -> int:
        """The list level tied to the paragraph's style (``w:pStyle``), or one of its bases."""
        for candidate in self._styles.chain_ids(style_id) or [style_id]:
            for ilvl, level in num.levels.items():
                if level.pstyle == candidate:
                    return ilvl
        return 0

    def _num_of(self, ppr: Any, style_id: str | None) -> tuple[str | None, int | None]:
        num_pr = None if ppr is None else ppr.find(w("numPr"))
        direct_id, direct_ilvl = val(num_pr, "numId"), val(num_pr, "ilvl")
        ilvl = int(direct_ilvl) if direct_ilvl and direct_ilvl.isdigit() else None
        if direct_id is not None:
            if ilvl is None and self._styles.first(style_id, "num_id") == direct_id:
                ilvl = self._styles.first(style_id, "ilvl")
            return direct_id, ilvl
        return self._styles.first(style_id, "num_id"), (
            ilvl if ilvl is not None else self._styles.first(style_id, "ilvl")
        )

    def _advance(self, num: _Num, ilvl: int) -> dict[int, int]:
        counters = self._counters.setdefault(num.abstract, {})
        if not num.used:
            num.used = True
            for level, start in num.starts.items():
                counters[level] = start - 1
                for deeper in [d for d in counters if d > level]:
                    del counters[deeper]
        level = num.levels[ilvl]
        counters[ilvl] = counters[ilvl] + 1 if ilvl in counters else level.start
        for deeper in [d for d in counters if d > ilvl]:
            restart = num.levels.get(deeper, _Level()).restart
            if restart is None or (restart != 0 and ilvl < restart):
                del counters[deeper]
        return counters

    def _render(self, num: _Num, ilvl: int, counters: dict[int, int]) -> str:
        level = num.levels[ilvl]
        if level.fmt == "none":
            return ""

        def value(match: re.Match[str]) -> str:
            index = int(match.group(1)) - 1
            shown = num.levels.get(index, _Level())
            fmt = shown.fmt
            if level.is_legal and fmt not in ("decimal", "decimalZero"):
                fmt = "decimal"
            return format_number(counters.get(index, shown.start), fmt)

        if level.fmt == "bullet":
            return level.text
        return re.sub(r"%([1-9])", value, level.text)


def format_number(value: int, fmt: str) -> str:
    """A counter in a Word number format: 3 -> "c" (lowerLetter), 28 -> "BB" (upperLetter)."""
    if fmt in ("lowerLetter", "upperLetter") and value > 0:
        letter = chr(ord("a") + (value - 1) % 26) * ((value - 1) // 26 + 1)
        return letter if fmt == "lowerLetter" else letter.upper()
    if fmt in ("lowerRoman", "upperRoman") and 0 < value < 4000:
        roman = int_to_roman(value)
        return roman.lower() if fmt == "lowerRoman" else roman
    if fmt == "decimalZero" and 0 <= value < 10:
        return f"0{value}"
    if fmt == "ordinal":
        suffix = "th" if 10 <= value % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(value % 10)
        return f"{value}{suffix or 'th'}"
    return str(value)
