"""Letters of one ligature glyph: PDFium gives each the glyph's whole box."""

from __future__ import annotations

import numpy as np

from hierdoc.pipeline.convert_pdf import share_ligature_boxes


def test_the_letters_of_a_ligature_share_its_box_in_order() -> None:
    """ "Officers" set with an "ffi" glyph: three letters with one box, which read as the
    line going back twice; each letter gets a third of the box, left to right."""
    letters = "Officers"
    x0 = np.array([10.0, 16.0, 16.0, 16.0, 25.0, 29.0, 33.0, 37.0])
    x1 = np.array([16.0, 25.0, 25.0, 25.0, 29.0, 33.0, 37.0, 41.0])
    share_ligature_boxes(letters, x0, x1)
    assert np.allclose(x0[1:4], [16.0, 19.0, 22.0]) and np.allclose(x1[1:4], [19.0, 22.0, 25.0])
    assert (np.diff(x0) > 0).all()


def test_other_letters_on_one_box_are_left_alone() -> None:
    """A letter printed twice on itself (bold by overprinting) is no ligature."""
    x0, x1 = np.array([0.0, 5.0, 5.0]), np.array([5.0, 10.0, 10.0])
    share_ligature_boxes("xAA", x0, x1)
    assert x0.tolist() == [0.0, 5.0, 5.0] and x1.tolist() == [5.0, 10.0, 10.0]
