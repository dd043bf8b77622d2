"""Bounded inputs: what the convert stage checks before it reads or unpacks a file.

Every check is cheap (a ``stat``, a zip's central directory, the first 64 KB of a
file) and returns ``None`` or a one-line reason naming the limit and the setting
that raises it, e.g. ``file is 2,048 MB, over max_file_mb 200``. The convert
stage turns a reason into a :class:`~hierdoc.pipeline.convert.ConversionError`.
"""

from __future__ import annotations

import codecs
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

MB = 1 << 20
HEAD_BYTES = 64 * 1024
"""How much of a file the text sniffing looks at; a file is never read whole to call it binary."""
RATIO_FLOOR_BYTES = MB
"""Zip members smaller than this unpacked are not ratio-checked: tiny XML parts compress
very well and cannot hurt."""
_BINARY_CONTROL_RATIO = 0.02
_UTF16_NUL_SHARE = 0.3
_UTF16_OTHER_NUL_SHARE = 0.02
_UNICODE_BOMS = (
    codecs.BOM_UTF8,
    codecs.BOM_UTF32_LE,
    codecs.BOM_UTF32_BE,
    codecs.BOM_UTF16_LE,
    codecs.BOM_UTF16_BE,
)
# C0 controls that do not occur in text; tab, newlines, \v, \f, ESC (ANSI colours)
# and Ctrl-Z (DOS end of file) do.
_CONTROL_BYTES = frozenset(range(0x20)) - {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1A, 0x1B} | {0x7F}
_NOT_CONTROL = bytes(b for b in range(256) if b not in _CONTROL_BYTES)
_CONTROL_CHARS = "".join(chr(b) for b in sorted(_CONTROL_BYTES))
_FILE_KINDS = (
    (stat.S_ISDIR, "directory"),
    (stat.S_ISFIFO, "FIFO"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
)


@dataclass(frozen=True)
class Limits:
    """Size limits of one ingest; defaults as in :class:`~hierdoc.config.IngestSettings`."""

    max_file_mb: float = 200
    max_unzipped_mb: float = 500
    max_zip_ratio: float = 100
    max_zip_members: int = 10_000
    max_chars: int = 50_000_000
    max_section_depth: int = 1000
    max_html_elements: int = 250_000

    @classmethod
    def from_settings(cls, settings: Any) -> Limits:
        """The limits of ``settings`` (an IngestSettings); defaults for fields it lacks."""
        default = cls()
        return cls(**{name: getattr(settings, name, getattr(default, name)) for name in _FIELDS})


_FIELDS = (
    "max_file_mb",
    "max_unzipped_mb",
    "max_zip_ratio",
    "max_zip_members",
    "max_chars",
    "max_section_depth",
    "max_html_elements",
)


class Sniff(NamedTuple):
    """What the first bytes of a would-be text file say."""

    binary: bool
    encoding: str | None = None
    """A codec to decode with (BOM-less UTF-16); None: the usual detection decides."""


# --------------------------------------------------------------------------- files


def file_kind(mode: int) -> str | None:
    """``None`` for a regular file, else what it is ('FIFO', 'socket', 'character device'...)."""
    if stat.S_ISREG(mode):
        return None
    for test, name in _FILE_KINDS:
        if test(mode):
            return name
    return "special file"


def not_regular_reason(mode: int) -> str | None:
    kind = file_kind(mode)
    if kind is None:
        return None
    if kind == "directory":
        return "is a directory, not a file"
    return f"not a regular file: {kind}"


def size_reason(size: int, limits: Limits) -> str | None:
    if size > limits.max_file_mb * MB:
        return f"file is {_mb(size)}, over max_file_mb {limits.max_file_mb:g}"
    return None


def chars_reason(chars: int, limits: Limits) -> str | None:
    if chars > limits.max_chars:
        return f"text has {chars:,} characters, over max_chars {limits.max_chars}"
    return None


def depth_reason(depth: int, limits: Limits) -> str | None:
    """Sections nested deeper than the limit: a clause numbered ``1.1.1...`` 5,000 levels
    deep is 25 MB of labels, and each section carries the ids of its ancestors."""
    if depth > limits.max_section_depth:
        return (
            f"sections are nested {depth:,} levels deep, "
            f"over max_section_depth {limits.max_section_depth}"
        )
    return None


_OPENING_TAG = re.compile(rb"<[A-Za-z]")


def html_reason(path: Path, limits: Limits) -> str | None:
    """HTML with more elements than the limit, counted in the raw bytes a block at a time:
    the HTML converter holds a tree of about 2 KB per element (an 8 MB page of inline
    tags took 1.4 GB)."""
    elements = 0
    with open(path, "rb") as fh:
        carry = b""
        while block := fh.read(MB):
            data = carry + block
            elements += len(_OPENING_TAG.findall(data))
            carry = b"<" if data.endswith(b"<") else b""  # counted with the next block
    if elements > limits.max_html_elements:
        return f"HTML has {elements:,} elements, over max_html_elements {limits.max_html_elements}"
    return None


# --------------------------------------------------------------------------- zip archives


def zip_reason(path: Path, kind: str, limits: Limits) -> str | None:
    """Check a zip-based document (DOCX, PPTX, XLSX) from its central directory only.

    Nothing is decompressed: member count, each member's compression ratio and the
    total unpacked size are read from the directory. Python's zipfile never
    unpacks a member beyond its declared size, so the declared sizes bound what
    a converter can be made to read.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        return f"cannot read {kind}: not a {kind} file (not a zip archive)"
    if len(members) > limits.max_zip_members:
        return (
            f"{kind} zip has {len(members):,} members, "
            f"over max_zip_members {limits.max_zip_members}"
        )
    for member in members:
        if member.file_size < RATIO_FLOOR_BYTES:
            continue
        ratio = member.file_size / max(member.compress_size, 1)
        if ratio > limits.max_zip_ratio:
            return (
                f"{kind} member {_short(member.filename)} unpacks {ratio:,.0f}:1 "
                f"({_mb(member.file_size)}), over max_zip_ratio {limits.max_zip_ratio:g} "
                "(zip bomb?)"
            )
    total = sum(member.file_size for member in members)
    if total > limits.max_unzipped_mb * MB:
        return f"{kind} unpacks to {_mb(total)}, over max_unzipped_mb {limits.max_unzipped_mb:g}"
    return None


# --------------------------------------------------------------------------- text sniffing


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(size)


def sniff_text(head: bytes) -> Sniff:
    """Tell text from binary by the first bytes of a file (see :data:`HEAD_BYTES`).

    A Unicode BOM means text. BOM-less UTF-16 is recognised by NUL bytes on one
    side of the byte pairs only (text mostly of Latin characters) and a clean
    decode. Otherwise NUL bytes, or more than 2% of control characters that text
    does not contain, mean binary.
    """
    if head.startswith(_UNICODE_BOMS):
        return Sniff(binary=False)
    utf16 = _bomless_utf16(head)
    if utf16 is not None:
        return Sniff(binary=False, encoding=utf16)
    if b"\x00" in head:
        return Sniff(binary=True)
    controls = len(head.translate(None, _NOT_CONTROL))
    return Sniff(binary=controls > _BINARY_CONTROL_RATIO * len(head))


def has_bom(data: bytes) -> bool:
    return data.startswith(_UNICODE_BOMS)


def _bomless_utf16(head: bytes) -> str | None:
    pairs = len(head) // 2
    if pairs < 2:
        return None
    even_nuls = head[0 : 2 * pairs : 2].count(0)
    odd_nuls = head[1 : 2 * pairs : 2].count(0)
    if odd_nuls >= _UTF16_NUL_SHARE * pairs and even_nuls <= _UTF16_OTHER_NUL_SHARE * pairs:
        encoding = "utf-16-le"
    elif even_nuls >= _UTF16_NUL_SHARE * pairs and odd_nuls <= _UTF16_OTHER_NUL_SHARE * pairs:
        encoding = "utf-16-be"
    else:
        return None
    try:
        text = codecs.getincrementaldecoder(encoding)().decode(head[: 2 * pairs], final=False)
    except UnicodeDecodeError:
        return None
    if "\x00" in text:
        return None
    controls = sum(text.count(ch) for ch in _CONTROL_CHARS)
    return None if controls > _BINARY_CONTROL_RATIO * max(len(text), 1) else encoding


# --------------------------------------------------------------------------- helpers


def _mb(size: int) -> str:
    value = size / MB
    return f"{value:,.1f} MB" if value < 10 else f"{value:,.0f} MB"


def _short(name: str, limit: int = 60) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"
