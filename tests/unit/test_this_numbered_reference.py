""""this Section 5": a numbered reference, not the current section."""

from hierdoc.pipeline.extract.crossrefs import find_references


def _found(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(r.text, r.candidate_ids) for r in find_references(text)]


def test_this_before_a_numbered_block_is_a_lead_in() -> None:
    assert _found("A breach of this Section 5 (Confidentiality) causes harm.") == [
        ("Section 5", ("section-5",))
    ]
    assert _found("Under this Article 12 the seller pays.") == [("Article 12", ("article-12",))]


def test_this_alone_is_still_the_current_part() -> None:
    assert _found("The notice set out in this Section applies.") == [("this Section", ())]
    assert _found("this Agreement and this Section, 5 days after") == [("this Section", ())]
    found = find_references("Under this paragraph (d)(3) the agency acts.")
    assert [(r.text, r.relative) for r in found] == [("paragraph (d)(3)", ("d", "3"))]
