"""The project's files speak of the product, not of how it was made.

Every text file git tracks is read for process words: issue numbers, numbered work
sessions or work periods, a baseline named after where it came from, numbered stops. A
hit fails with ``path:line`` and the words found. CHANGELOG.md records the history by
version and is exempt, as is this file, which names the words it looks for. Sessions in
the product's own sense (pytest fixture scope, MCP, HTTP and database sessions) are not
process words, so only a session with an ordinal in front of it counts.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.paths import REPOSITORY

ROOT = REPOSITORY
EXEMPT = frozenset({"CHANGELOG.md", "tests/unit/test_project_words.py"})
"""CHANGELOG.md keeps the history by version; this file has to name the words it looks for."""
ORDINALS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth"

PROCESS_WORDS: dict[str, re.Pattern[str]] = {
    "an issue number": re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE),
    "a numbered work session": re.compile(rf"\b(?:{ORDINALS})\s+session\b", re.IGNORECASE),
    "a work period": re.compile(r"\bwork\s+periods?\b", re.IGNORECASE),
    "a baseline named by its origin": re.compile(r"\bseeds'|\bseed\s+design\b", re.IGNORECASE),
    "a numbered stop": re.compile(r"\bstop\s+\d+\b", re.IGNORECASE),
}


def process_words(text: str) -> list[tuple[int, str, str]]:
    """(line, what, words) for each process word in ``text``, in order; a match may span a
    line break (wrapped prose), and is reported at the line where it starts."""
    found = []
    for what, pattern in PROCESS_WORDS.items():
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((line, what, " ".join(match.group().split())))
    return sorted(found)


def tracked_text_files() -> list[Path]:
    """The files git tracks, minus the exempt ones and those that are not UTF-8 text."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"not a git checkout ({error})")
    paths = [ROOT / name for name in listed.decode().split("\0") if name and name not in EXEMPT]
    return [path for path in paths if path.is_file() and _text(path) is not None]


def _text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_no_tracked_file_speaks_of_how_the_project_was_made() -> None:
    files = tracked_text_files()
    assert len(files) > 50, "git listed too few files to check"
    hits = [
        f"{path.relative_to(ROOT)}:{line}: {what}: {words!r}"
        for path in files
        for line, what, words in process_words(_text(path) or "")
    ]
    assert not hits, "process words in the project's files:\n" + "\n".join(hits)


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("fixed in " + "issue" + " 13", "an issue number"),
        ("(" + "issues" + " 13, 18)", "an issue number"),
        ("see " + "Issue #" + "4", "an issue number"),
        ("made in the " + "seventh" + " session", "a numbered work session"),
        ("the " + "Second\nsession" + "'s end", "a numbered work session"),
        ("a log of " + "work" + " periods", "a work period"),
        ("beside the " + "seeds'" + " design", "a baseline named by its origin"),
        ("the HoloDeck " + "seed" + " design", "a baseline named by its origin"),
        ("left for " + "stop" + " 3", "a numbered stop"),
    ],
)
def test_process_words_are_found(text: str, what: str) -> None:
    assert [hit[1] for hit in process_words("first line\n" + text)] == [what]
    assert process_words("first line\n" + text)[0][0] == 2


@pytest.mark.parametrize(
    "text",
    [
        '@pytest.fixture(scope="session")',
        "built once per session",
        "the MCP client session answers; an HTTP session; a database session",
        "a writer session holds the lock",
        "a random seed 13; --seed 7; the seed of the generator",
        "each issue is a question; issues of the index",
        "the first sessions of a client",
        "stop words; stops at 2k candidates; a full stop",
    ],
)
def test_legitimate_words_are_not_flagged(text: str) -> None:
    assert process_words(text) == []
