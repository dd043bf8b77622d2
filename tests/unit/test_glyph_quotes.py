"""Quotation marks a mis-encoded font printed as a bar and a double line are read as quotes."""

from hierdoc.pipeline.extract.definitions import find_definitions
from hierdoc.text.glyph_quotes import straighten_glyph_quotes


def test_bar_and_double_line_around_a_term_become_quotes():
    text = "In this Act—\n\u2015 trust company \u2016 means a company licensed under Part II;\n"
    fixed = straighten_glyph_quotes(text)
    assert "“ trust company ” means" in fixed
    assert len(fixed) == len(text)


def test_a_term_broken_over_two_lines_and_closed_by_a_straight_quote():
    text = "\u2015 lending\ninstitution\" means any bank;\n\u2015savings account\u2016 includes—"
    assert straighten_glyph_quotes(text) == (
        "“ lending\ninstitution” means any bank;\n“savings account” includes—"
    )


def test_bars_used_as_dashes_stay():
    text = "The Board \u2015 acting alone \u2015 may refuse the application."
    assert straighten_glyph_quotes(text) == text


def test_a_bar_pair_before_a_definition_verb_is_a_quoted_term():
    text = "For this section \u2015 deposit \u2015 shall have the meaning in section 4."
    assert straighten_glyph_quotes(text).startswith("For this section “ deposit ” shall have")


def test_definitions_are_found_between_the_glyphs():
    text = straighten_glyph_quotes(
        "12. In this Act, unless the context otherwise requires—\n\n"
        "\u2015 trust company \u2016 means a company licensed to act as trustee under Part II;\n\n"
        "\u2015deposit\u2016 includes a sum of money paid on terms that it will be repaid.\n"
    )
    terms = {d.term.strip() for d in find_definitions(text)}
    assert {"trust company", "deposit"} <= terms


def test_converted_documents_carry_the_quotes(tmp_path):
    from hierdoc.pipeline.convert import convert_file

    path = tmp_path / "act.txt"
    path.write_text("1. In this Act \u2015 deposit \u2016 means money repaid on demand.\n")
    assert "“ deposit ” means" in convert_file(path).text
