"""Definitions in layouts of licences, legislation, bylaws and glossaries: quoted terms on
lines of their own, qualified and inclusive legislative definitions, compound glossary
entries, bold terms inside sentences, parenthetical names and quotes that do not match."""

from __future__ import annotations

from hierdoc.pipeline.extract.definitions import find_definitions


def _pairs(text: str, in_section: bool = False) -> dict[str, str]:
    return {d.term: d.definition for d in find_definitions(text, in_section)}


# --- a quoted term alone on its line, its text on the lines below ----------------------------

QUOTED_LINES = """GLOSSARY
========

The following words are used in this document:

   `Package'
    Any bundle of files published under this document.

   `Upstream Author'
    The person who first published a Package, or a person named by them.

   "Mirror"
    A site copying a Package without changing it.
"""


def test_a_quoted_term_alone_on_its_line_is_defined_by_the_lines_below() -> None:
    found = _pairs(QUOTED_LINES, True)
    assert found["Package"] == "Any bundle of files published under this document"
    assert found["Upstream Author"].startswith("The person who first published")
    assert found["Mirror"] == "A site copying a Package without changing it"


def test_an_unquoted_line_one_column_over_its_text_is_no_term() -> None:
    text = "Scope\n\n   Packages\n    These rules apply to every package we ship.\n"
    assert "Packages" not in _pairs(text, True)
