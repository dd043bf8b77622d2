"""Markdown lists numbered again inside an item, and lists set in under titled clauses."""

from hierdoc.pipeline.structure import parse_sections


def _sections(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(s.section_id, s.path) for s in parse_sections(text, "Doc")[1:]]


def test_a_list_numbered_again_inside_an_item_nests_under_it() -> None:
    text = """# Terms

## 3. Obligations

1. The Supplier shall:
    1. deliver the goods; and
        i. pack them safely;
        ii. label them clearly;
    2. invoice the Customer.
2. The Customer shall pay.
"""
    assert _sections(text) == [
        ("section-3", ()),
        ("section-3-1", ("section-3",)),
        ("section-3-1-1", ("section-3", "section-3-1")),
        ("section-3-1-1-i", ("section-3", "section-3-1", "section-3-1-1")),
        ("section-3-1-1-ii", ("section-3", "section-3-1", "section-3-1-1")),
        ("section-3-1-2", ("section-3", "section-3-1")),
        ("section-3-2", ("section-3",)),
    ]


def test_the_outer_list_goes_on_after_a_nested_list_of_one_item() -> None:
    text = """# Terms

## 3. Obligations

1. The Supplier shall:
    1. deliver the goods.
2. The Customer shall pay.
3. Both parties act in good faith.
"""
    outer = [("section-3-2", ("section-3",)), ("section-3-3", ("section-3",))]
    assert _sections(text)[-2:] == outer


def test_a_list_set_in_under_titled_clauses_stays_their_text() -> None:
    text = """Example Protocol

1.  Introduction

   The protocol has three steps:

   1. The client connects.

   2. The server answers.

2.  Terminology

   Words are used as usual.
"""
    assert _sections(text) == [("section-1", ()), ("section-2", ())]


def test_items_of_one_list_at_one_indent_are_siblings() -> None:
    text = """# Terms

## 3. Obligations

1. The Supplier delivers.
1. The Customer pays.
"""
    assert _sections(text) == [("section-3", ()), ("section-3-1", ("section-3",))]
