"""A PDF page for the web page: rendered to PNG with pypdfium2, and the boxes of a
passage's characters on it, found by matching the passage against the page's own text
(letters and digits only, case folded, so that line breaks, hyphens and Markdown marks
in the converted text do not matter)."""

from __future__ import annotations

import struct
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ..errors import InputError

RENDER_SCALE = 1.5
"""Pixels per PDF point of a rendered page (108 dpi)."""
ANCHOR_CHARS = 40
"""When a passage is not found whole on a page (it runs on to the next, or the converter
changed a word), its first and last letters this long mark where it starts and ends."""

_PDFIUM = threading.Lock()  # pdfium is not thread-safe


@dataclass(frozen=True)
class Box:
    """A rectangle on the page, in fractions of the page's width and height from its top
    left corner (so that it scales with the image)."""

    left: float
    top: float
    width: float
    height: float


@dataclass(frozen=True)
class PageLayout:
    number: int
    """From 1."""
    pages: int
    width: float
    height: float
    boxes: list[Box]


def page_count(path: Path) -> int:
    with _PDFIUM:
        document = pdfium.PdfDocument(path)
        try:
            return len(document)
        finally:
            document.close()


def render_png(path: Path, number: int, scale: float = RENDER_SCALE) -> bytes:
    """Page ``number`` (from 1) of the PDF as a PNG image."""
    with _PDFIUM:
        document = pdfium.PdfDocument(path)
        try:
            page = document[_checked_page(number, len(document))]
            pixels = page.render(scale=scale, rev_byteorder=True).to_numpy()
        finally:
            document.close()
    return encode_png(pixels[:, :, :3].copy())


def layout(path: Path, number: int, passage: str | None) -> PageLayout:
    """Page ``number``'s size and the boxes of ``passage``'s characters on it (none when
    no passage is given or it is not on the page)."""
    with _PDFIUM:
        document = pdfium.PdfDocument(path)
        try:
            page = document[_checked_page(number, len(document))]
            left, bottom, right, top = page.get_cropbox()
            width, height = right - left, top - bottom
            boxes = []
            if passage:
                textpage = page.get_textpage()
                rects = _passage_rects(textpage, passage)
                boxes = [
                    Box((x0 - left) / width, (top - y1) / height,
                        (x1 - x0) / width, (y1 - y0) / height)
                    for x0, y0, x1, y1 in rects
                ]  # fmt: skip
            return PageLayout(number, len(document), width, height, boxes)
        finally:
            document.close()


def _checked_page(number: int, pages: int) -> int:
    if not 1 <= number <= pages:
        raise InputError(f"page {number} is not in the document: it has pages 1 to {pages}")
    return number - 1


def _folded(text: str) -> tuple[str, list[int]]:
    """The letters and digits of ``text``, case folded, and where each came from."""
    key, origins = [], []
    for index, char in enumerate(text):
        for folded in char.casefold():
            if folded.isalnum():
                key.append(folded)
                origins.append(index)
    return "".join(key), origins


def char_range(page_text: str, passage: str) -> tuple[int, int] | None:
    """The characters of ``page_text`` (start, end) that hold ``passage``; a passage that
    runs past the page's end ends with the page."""
    page_key, origins = _folded(page_text)
    passage_key, _ = _folded(passage)
    if not passage_key or not page_key:
        return None
    found = page_key.find(passage_key)
    if found >= 0:
        return origins[found], origins[found + len(passage_key) - 1] + 1
    head, tail = passage_key[:ANCHOR_CHARS], passage_key[-ANCHOR_CHARS:]
    start = page_key.find(head)
    if start < 0:
        return None
    end = page_key.find(tail, start + len(head))
    last = end + len(tail) - 1 if end >= 0 else len(page_key) - 1
    return origins[start], origins[last] + 1


def _passage_rects(textpage: pdfium.PdfTextPage, passage: str) -> list[tuple[float, ...]]:
    count = pdfium_c.FPDFText_CountChars(textpage.raw)
    chars = "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i) or 32) for i in range(count))
    found = char_range(chars, passage)
    if found is None:
        return []
    start, end = found
    rects = [textpage.get_rect(i) for i in range(textpage.count_rects(start, end - start))]
    return line_boxes([r for r in rects if r[2] > r[0] and r[3] > r[1]])


def line_boxes(rects: list[tuple[float, ...]]) -> list[tuple[float, ...]]:
    """Rectangles (left, bottom, right, top) of one line (more than half of the lower one's
    height shared) joined into one, in reading order."""
    lines: list[list[float]] = []
    for x0, y0, x1, y1 in rects:
        last = lines[-1] if lines else None
        if last and min(y1, last[3]) - max(y0, last[1]) > 0.5 * min(y1 - y0, last[3] - last[1]):
            last[:] = [min(x0, last[0]), min(y0, last[1]), max(x1, last[2]), max(y1, last[3])]
        else:
            lines.append([x0, y0, x1, y1])
    return [tuple(line) for line in lines]


def encode_png(pixels: object) -> bytes:
    """An RGB image (a height x width x 3 uint8 array) as PNG bytes."""
    height, width, _ = pixels.shape  # type: ignore[attr-defined]
    rows = b"".join(b"\x00" + row.tobytes() for row in pixels)  # type: ignore[attr-defined]

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 6))
        + chunk(b"IEND", b"")
    )
