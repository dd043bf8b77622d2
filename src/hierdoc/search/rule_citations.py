"""Rulebook citations a query writes around a numbered rule: "Guidance 4 under Rule 9.3.2"
cites the fourth guidance note of Rule 9.3.2 (section ``rule-9-3-2-guidance-4``, which a
rulebook's numbering "9.3.2.Guidance.4." gives), before the rule itself.

The other spellings need no more than the citation reader and the document names: "Rule
9.3.2", "Rule 9.3.2(1)(a)" and "section 9.3.2" are citations; "GEN 9.3.2" and "9.3.2 of
GEN" name a document and cite a number in it (:meth:`~.names.Naming.rest`).
"""

from __future__ import annotations

import re

#: "Guidance 4 under", "Guidance note 4 to", "guidance 2 of": written just before a citation.
_GUIDANCE_BEFORE = re.compile(
    r"\bguidance(?:\s+notes?)?\s+(?:no\.?\s*)?(?P<number>\d{1,3})\s*,?\s+"
    r"(?:under|to|of|in|on|for)\s+(?:the\s+)?$",
    re.IGNORECASE,
)


def with_guidance(
    query: str, start: int, text: str, ids: tuple[str, ...]
) -> tuple[int, str, tuple[str, ...]]:
    """The citation ``text`` at ``start`` (candidate section ids ``ids``, most specific
    first) widened to a guidance note written before it: its start, its text, and the note's
    id before the others. Unchanged when no guidance note is written before it."""
    match = _GUIDANCE_BEFORE.search(query, 0, start)
    if match is None or match.end() != start or not ids:
        return start, text, ids
    note = f"{ids[0]}-guidance-{match.group('number')}"
    return match.start(), query[match.start() : start] + text, (note, *ids)
