"""A table of contents heading holds no section: the body after it is not nested under it."""

from hierdoc.pipeline.structure import parse_sections


def _sections(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(s.section_id, s.path) for s in parse_sections(text, "Doc")[1:]]


def test_headings_below_a_contents_heading_of_a_higher_level_are_not_its_children() -> None:
    text = """# Example Policy

# TABLE OF CONTENTS

1. Purpose ........ 2
2. Scope .......... 3

## 1. Purpose

This policy sets rules.

## 2. Scope

It applies to all staff.

# Annex

More text.
"""
    assert _sections(text) == [
        ("example-policy", ()),
        ("table-of-contents", ()),
        ("section-1", ()),
        ("section-2", ()),
        ("annex", ()),
    ]


def test_numbered_clauses_in_the_text_of_a_contents_heading_sit_beside_it() -> None:
    text = """# Services Agreement

## Contents

The clauses of this agreement follow.

1. Services. The Supplier provides the services.

2. Fees. The Customer pays the fees.

(a) Fees are due in 30 days.
"""
    assert _sections(text) == [
        ("contents", ()),
        ("section-1", ()),
        ("section-2", ()),
        ("section-2-a", ("section-2",)),
    ]


def test_a_heading_that_only_mentions_contents_still_holds_its_clauses() -> None:
    text = """# Services Agreement

## Contents of the Delivery

1. Services. The Supplier provides the services.

2. Fees. The Customer pays the fees.
"""
    assert _sections(text) == [
        ("contents-of-the-delivery", ()),
        ("section-1", ("contents-of-the-delivery",)),
        ("section-2", ("contents-of-the-delivery",)),
    ]
