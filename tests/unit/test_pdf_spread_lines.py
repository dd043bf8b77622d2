"""A page of one column whose justified line is spread into parts by wide gaps ("(3) The
··· provisions ··· of Part V ...", a note in the margin beside it): the parts are one line
again, in their place; a table's cells are not joined."""

from __future__ import annotations

from hierdoc.pipeline.convert_pdf import convert_pdf
from tests.unit.test_pdf_furniture import Item, write_pdf

_BODY = "Times-Roman"
_FULL = "the Trust shall keep a register of every holder of a permit issued under the Act"


def _right_end(tmp_path, text: str, x: float) -> float:
    """Where ``text`` set at ``x`` ends."""
    import pypdfium2

    path = write_pdf(tmp_path / "probe.pdf", [[(text, x, 100, 11, _BODY)]])
    document = pypdfium2.PdfDocument(str(path))
    right = document[0].get_textpage().get_charbox(len(text) - 1)[2]
    document.close()
    return right


def test_a_spread_line_beside_a_margin_note_is_one_line(tmp_path) -> None:
    tail = "of Part V of this Act shall come into operation on"
    start = _right_end(tmp_path, _FULL, 122) - _right_end(tmp_path, tail, 0)
    page: list[Item] = [
        ("(2) The provisions of this Act other than Part V shall come into", 135, 98, 11, _BODY),
        (_FULL, 122, 112, 11, _BODY),
        ("(hereinafter referred to as the appointed date).", 122, 126, 11, _BODY),
        ("[* 16th September, 1988]", 8, 146, 7, _BODY),
        ("(3) The", 135, 150, 11, _BODY),
        ("provisions", 180, 150, 11, _BODY),
        (tail, start, 150, 11, _BODY),
        (
            "later date as may be appointed by the Minister by Order published in",
            122,
            164,
            11,
            _BODY,
        ),
    ]
    text = convert_pdf(write_pdf(tmp_path / "act.pdf", [page])).text
    assert f"(3) The provisions {tail}\nlater date" in text
    assert "[* 16th September, 1988]" in text


def test_the_cells_of_a_table_stay_apart(tmp_path) -> None:
    cell = "charged for each permit in a year"
    start = _right_end(tmp_path, _FULL, 150) - _right_end(tmp_path, cell, 0)
    rows = ("Fee", "Levy", "Duty", "Toll", "Rate")
    page: list[Item] = [(_FULL, 150, 80, 11, _BODY)]
    page += [(label, 150, 100 + 14 * n, 11, _BODY) for n, label in enumerate(rows)]
    page += [(cell, start, 100 + 14 * n, 11, _BODY) for n in range(len(rows))]
    page.append((_FULL, 150, 100 + 14 * len(rows), 11, _BODY))
    text = convert_pdf(write_pdf(tmp_path / "fees.pdf", [page])).text
    assert f"Fee {cell}" not in text
    assert f"Levy {cell}" not in text

