"""Structure of source code: the declarations (class, function, impl, ...) open at a point.

A chunk of source code cut out of a file ("if (bufferPos != 0) { ... }") says
nothing about where it sits; the file's declarations do: ``class Blake2b >
void update(byte[] message, int offset, int len)``. That chain is to code what
"Chapter III > Article 17" is to a regulation, and serves the same purposes: it
is the chunk's parent chain in results and its structural context when it is
embedded and keyword-indexed (measured in BENCHMARKS.md, "Retrieval quality").
A chunk that starts outside every declaration (a licence and imports, a comment
between two classes) is placed under the declaration it leads into: that is what
a file's preamble or a doc comment is about.

Declarations are found line by line with one pattern that covers the common
C-family, Java, Rust, Go, Python and JavaScript forms; a declaration stays open
until a later line is indented no deeper than it (its closing brace or a
dedent). It is a heuristic, not a parser: it needs consistent indentation, which
is how code is written, and a missed declaration only makes a chain shorter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_MODIFIERS = (
    r"(?:(?:pub(?:\([\w:]+\))?|public|private|protected|internal|static|final|abstract|sealed"
    r"|virtual|inline|explicit|constexpr|override|async|unsafe|export|default|extern"
    r"|template\s*<[^>]*>|const|synchronized|native|partial|open|data|inner)\s+)*"
)
_KEYWORD_DECLARATION = (
    r"(?:class|struct|interface|enum|trait|impl|mod|namespace|union|record|object|def|fn|func"
    r"|function)\b[^;{]*"
)
# A function or method: a type and a (qualified) name before a parameter list, a
# bare name and parameters opening a block (constructors, JavaScript methods), or a
# macro opening a block (``TEST_F(Suite, name) {``). No ``;``: that is a call or a
# prototype, not a definition.
_SIGNATURE = (
    r"[\w:<>,\[\]*&?.]+(?:\s+[\w:<>,\[\]*&?.]+)*\s+[*&]*[\w:~]+\s*\([^;]*$"
    r"|[\w$:~]+\s*\([^;]*\)[^;]*\{\s*$"
)
_DECLARATION = re.compile(
    rf"^(?P<indent>[ \t]*)(?P<line>{_MODIFIERS}(?:{_KEYWORD_DECLARATION}|{_SIGNATURE}))"
)
_NOT_DECLARATION = re.compile(
    r"^\s*(?:(?:if|for|foreach|while|switch|catch|return|else|do|try|case|new|throw|using"
    r"|await|yield|assert|delete|goto|break|continue|let|var|val)\b|[#@*/=+\-.}\])])"
)
# Lines that continue a declaration rather than close it: its opening brace, the
# rest of a parameter list, a Rust ``where`` clause, a comment.
_CONTINUATION = ("{", ")", "//", "/*", "*", "#", "where", ":", ",", "->", "=>")
_CODE_LINE = re.compile(
    r"[;{}]\s*$|\)\s*:\s*$|^\s*(?:def|class|import|return|elif|except|raise|fn|func)\b"
    r"|^\s*from\s+\S+\s+import\b|^\s*(?:self|this)\.|^\s*[\w.\[\]]+\s*[-+*/]?=\s*\S"
    r"|^\s*(?:if|elif|else|for|while|with|try|finally)\b.*:\s*$"
)
_COMMENT = re.compile(r"^\s*(?://|/\*|\*|#)")
MAX_LABEL_CHARS = 100


@dataclass(frozen=True)
class Declaration:
    label: str
    start: int
    end: int
    indent: int


def looks_like_code(text: str) -> bool:
    """True when at least a third of the lines that are neither blank nor comments are
    statements of code (``;`` ``{`` ``}`` at the end, ``def``, ``import``, ``self.``)."""
    lines = [line for line in text.splitlines() if line.strip() and not _COMMENT.match(line)]
    coded = sum(1 for line in lines if _CODE_LINE.search(line))
    return coded >= 3 and coded * 3 >= len(lines)


def declarations(text: str) -> list[Declaration]:
    """Every declaration line of ``text`` with the character range it stays open over."""
    lines = _lines(text)
    found = []
    for number, (offset, indent, line) in enumerate(lines):
        if not line.strip() or _NOT_DECLARATION.match(line):
            continue
        match = _DECLARATION.match(line)
        if not match:
            continue
        label = " ".join(match.group("line").rstrip("{: \t").split())[:MAX_LABEL_CHARS]
        if len(label) > 3:
            found.append(Declaration(label, offset, _end(lines, number, indent, len(text)), indent))
    return found


def scope_at(found: Sequence[Declaration], offset: int) -> tuple[str, ...]:
    """Labels of the declarations open at ``offset``, outermost first."""
    chain: list[Declaration] = []
    for declaration in found:
        if declaration.start >= offset:
            break
        if offset < declaration.end:
            chain = [d for d in chain if d.indent < declaration.indent and offset < d.end]
            chain.append(declaration)
    return tuple(d.label for d in chain)


def chunk_scopes(text: str, chunks: Sequence[str]) -> list[tuple[str, ...]]:
    """The scope chain at the start of each chunk, the chunks being consecutive parts of
    ``text``; for a chunk outside every declaration, the declaration that follows it.
    Empty chains when the text is not code or a chunk cannot be located."""
    if not looks_like_code(text):
        return [() for _ in chunks]
    found = declarations(text)
    scopes, cursor = [], 0
    for chunk in chunks:
        body = chunk.strip()
        position = text.find(body[:200], cursor) if body else -1
        if position < 0:
            scopes.append(())
            continue
        cursor = position
        scopes.append(scope_at(found, position + 1) or _introduced(found, position))
    return scopes


def _introduced(found: Sequence[Declaration], offset: int) -> tuple[str, ...]:
    """The label of the first declaration after ``offset``, if any."""
    following = next((d for d in found if d.start > offset), None)
    return (following.label,) if following else ()


def _lines(text: str) -> list[tuple[int, int, str]]:
    """(offset, indent width, line) for every line."""
    result, offset = [], 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        indent = len(stripped) - len(stripped.lstrip())
        result.append((offset, len(stripped[:indent].expandtabs(4)), stripped))
        offset += len(line)
    return result


def _end(lines: list[tuple[int, int, str]], number: int, indent: int, length: int) -> int:
    """Where the declaration on line ``number`` closes: the first later line indented no
    deeper than it that does not continue it."""
    for offset, other, line in lines[number + 1 :]:
        content = line.strip()
        if content and other <= indent and not content.startswith(_CONTINUATION):
            return offset + (len(line) if content[0] in "}]" else 0)
    return length
