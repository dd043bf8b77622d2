"""Scope chains of source code: the declarations open where a chunk starts."""

from __future__ import annotations

from hierdoc.pipeline.code_outline import chunk_scopes, declarations, looks_like_code, scope_at

JAVA = """\
/*
 * Licensed under the Apache License.
 */
package com.password4j;

class Blake2b
{
    private void init()
    {
        keyLength = 0;
    }

    void update(byte[] message, int offset, int len)
    {
        if (bufferPos != 0)
        {
            System.arraycopy(message, offset, buffer, bufferPos, len);
        }
    }
}

class After
{
}
"""

PYTHON = """\
import logging
from typing import Optional


class Octal(Decoder[str]):
    def decode(self, ctext: str) -> Optional[str]:
        logging.debug("Attempting octal")
        result = ""
        return result

    @staticmethod
    def priority() -> float:
        return 0.025


def main():
    print(Octal().decode("1"))
"""

RUST = """\
impl<A, B> DiffExecutor<A, B> {
    /// Create a new `DiffExecutor`.
    pub fn new(primary: A, secondary: B) -> Self
    where
        A: UsesState,
    {
        Self { primary, secondary }
    }
}
"""

CONTRACT = """\
1. Definitions. "Confidential Information" means all information disclosed by
the Disclosing Party (the "Discloser") to the Receiving Party, whether oral or
written, that is marked confidential.
2. Obligations. The Receiving Party shall (a) hold the information in confidence,
(b) not disclose it to any third party, and (c) use it only for the Purpose.
3. Term. This Agreement remains in force for three (3) years.
"""


def test_code_and_prose_are_told_apart() -> None:
    assert looks_like_code(JAVA)
    assert looks_like_code(PYTHON)
    assert looks_like_code(RUST)
    assert not looks_like_code(CONTRACT)
    assert not looks_like_code("")


def test_java_scope_at_a_statement_inside_a_method() -> None:
    found = declarations(JAVA)
    assert [d.label for d in found] == [
        "class Blake2b",
        "private void init()",
        "void update(byte[] message, int offset, int len)",
        "class After",
    ]
    inside = JAVA.index("System.arraycopy")
    assert scope_at(found, inside) == (
        "class Blake2b",
        "void update(byte[] message, int offset, int len)",
    )
    assert scope_at(found, JAVA.index("keyLength")) == ("class Blake2b", "private void init()")
    assert scope_at(found, JAVA.index("package")) == ()
    assert scope_at(found, JAVA.index("class After") + 12) == ("class After",)


def test_python_scopes_close_on_dedent_and_skip_statements() -> None:
    found = declarations(PYTHON)
    labels = [d.label for d in found]
    assert labels == [
        "class Octal(Decoder[str])",
        "def decode(self, ctext: str) -> Optional[str]",
        "def priority() -> float",
        "def main()",
    ]
    assert scope_at(found, PYTHON.index("result =")) == (
        "class Octal(Decoder[str])",
        "def decode(self, ctext: str) -> Optional[str]",
    )
    assert scope_at(found, PYTHON.index("print(")) == ("def main()",)


def test_a_where_clause_continues_the_declaration() -> None:
    found = declarations(RUST)
    assert scope_at(found, RUST.index("Self {")) == (
        "impl<A, B> DiffExecutor<A, B>",
        "pub fn new(primary: A, secondary: B) -> Self",
    )


def test_chunk_scopes_follow_consecutive_chunks() -> None:
    first, second = JAVA[: JAVA.index("    void update")], JAVA[JAVA.index("    void update") :]
    # A chunk that opens with a declaration sits in it, as a section's chunk sits under
    # its own heading.
    update = "void update(byte[] message, int offset, int len)"
    assert chunk_scopes(JAVA, [first, second]) == [("class Blake2b",), ("class Blake2b", update)]
    assert chunk_scopes(CONTRACT, [CONTRACT]) == [()]
    assert chunk_scopes(JAVA, ["text that is not in the file"]) == [()]


def test_a_chunk_outside_every_declaration_leads_into_the_next() -> None:
    """A licence and imports, or a doc comment between two classes, belong to the
    declaration they lead into; code after the last declaration belongs to none."""
    text = "/*\n * Licensed under the Apache License.\n */\npackage demo;\n\n"
    text += "import java.util.List;\n\n/** A stack of items. */\npublic class Stack\n{\n"
    text += "    void push(int item)\n    {\n        items.add(item);\n    }\n}\n\n"
    text += "/** Pops items. */\nclass Popper\n{\n}\n"
    cuts = [0, text.index("/** A stack"), text.index("    void push"), text.index("/** Pops")]
    chunks = [text[a:b] for a, b in zip(cuts, [*cuts[1:], len(text)], strict=True)]
    stack = "public class Stack"
    assert chunk_scopes(text, chunks) == [
        (stack,),
        (stack,),
        (stack, "void push(int item)"),
        ("class Popper",),
    ]
    trailer = "if __name__ == '__main__':\n    main()\n"
    assert chunk_scopes(PYTHON + trailer, [PYTHON, trailer])[1] == ()
