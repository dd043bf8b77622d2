"""Opening a .docx package: python-docx for the package, its parts by relationship.

Problems come back as :class:`~hierdoc.pipeline.convert.ConversionError` with one
line saying why; :class:`UnsupportedPackage` marks a file python-docx cannot open
but that may still be a readable document (the caller then tries markitdown).
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from lxml import etree

from .convert import ConversionError

NUMBERING_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering"
FOOTNOTES_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes"
ENDNOTES_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/endnotes"
STYLES_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles"
_PACKAGE_PARTS = frozenset({"[Content_Types].xml", "_rels/.rels"})
_NOT_WORD = "not a Word document"
_STRICT_NAMESPACE = b"purl.oclc.org/ooxml/officeDocument"


class UnsupportedPackage(ConversionError):
    """A package python-docx cannot open though it may be a readable document (Strict
    Open XML, a relationship to a missing part): the caller may try markitdown."""


def open_docx(path: Path) -> Any:
    """The python-docx Document, or a :class:`ConversionError` saying why not."""
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    with zipfile.ZipFile(path) as archive:
        if not set(archive.namelist()) >= _PACKAGE_PARTS:
            raise ConversionError(f"cannot read DOCX: {_NOT_WORD} (no package relationships)")
        if _STRICT_NAMESPACE in archive.read("_rels/.rels"):
            raise UnsupportedPackage("cannot read DOCX: Strict Open XML")
    try:
        return docx.Document(str(path))
    except OSError:
        raise
    except PackageNotFoundError as exc:
        raise ConversionError(f"cannot read DOCX: {_NOT_WORD} (no document part)") from exc
    except KeyError as exc:
        raise UnsupportedPackage(f"cannot read DOCX: missing part ({_short(str(exc))})") from exc
    except etree.XMLSyntaxError as exc:
        raise ConversionError(f"cannot read DOCX: damaged XML ({_xml_error(exc)})") from exc
    except ValueError as exc:
        raise ConversionError(f"cannot read DOCX: {_short(str(exc))}") from exc
    except Exception as exc:  # python-docx on a malformed package: its message means nothing
        raise ConversionError(
            f"cannot read DOCX: damaged or unusual file ({type(exc).__name__})"
        ) from exc


def _xml_error(exc: etree.XMLSyntaxError) -> str:
    return _short(re.sub(r"\s*\(<string>, line \d+\)$", "", str(exc)))


def related_root(part: Any, relationship: str) -> Any:
    """The XML root of the part ``part`` relates to with ``relationship``, or None."""
    try:
        related = part.part_related_by(relationship)
    except KeyError:
        return None
    element = getattr(related, "element", None)
    if element is not None:
        return element
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    try:
        return etree.fromstring(related.blob, parser)
    except etree.XMLSyntaxError as exc:
        raise ConversionError(f"cannot read DOCX: damaged XML ({_xml_error(exc)})") from exc


def _short(message: str, limit: int = 160) -> str:
    line = " ".join(message.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
