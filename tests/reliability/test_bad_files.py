"""A folder of 1,000+ bad inputs ingested in one run: no crash, every file
reported with its true reason, the good ones among them indexed, peak memory bounded.

The child's peak RSS is its ``ru_maxrss`` (it includes the fork server's imports).
"""

from __future__ import annotations

import os
import random
import zipfile
from pathlib import Path

import pytest

from tests.unit.test_nesting_scale import nested

from .harness import EXIT_OK, Figures, start_ingest

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

PEAK_RSS_LIMIT_KB = 1 << 20  # 1 GB


def _bomb(path: Path, member: str) -> None:
    """A zip whose one member unpacks 300 MB of zeros (about 1,000:1)."""
    archive = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
    with archive, archive.open(member, "w") as out:
        block = bytes(1 << 20)
        for _ in range(300):
            out.write(block)


def bad_folder(folder: Path, outside: Path) -> tuple[dict[str, str], set[str]]:
    """Write the folder; return path -> the reason expected, and the paths to be indexed."""
    rng = random.Random(16)
    folder.mkdir(parents=True)
    expected: dict[str, str] = {}
    good: set[str] = set()

    def entry(name: str, reason: str) -> Path:
        path = folder / name
        expected[str(path)] = reason
        return path

    for n in range(900):
        ext = ("md", "html", "txt")[n % 3]
        noise = rng.randbytes(rng.randint(100, 8000))
        entry(f"random-{n}.{ext}", "binary content").write_bytes(noise)
    for n in range(10):
        entry(f"control-{n}.md", "binary content").write_bytes(b"# T\n\x00\x01\x02 text\n" * 50)
        entry(f"empty-{n}.md", "empty file").write_bytes(b"")
        os.mkfifo(entry(f"fifo-{n}.md", "not a regular file: FIFO"))
        os.mkfifo(entry(f"fifo-{n}.txt", "not a regular file: FIFO"))
        os.symlink(folder / f"loop-{n}-b.md", entry(f"loop-{n}-a.md", "symbolic link loop"))
        os.symlink(folder / f"loop-{n}-a.md", entry(f"loop-{n}-b.md", "symbolic link loop"))
        os.symlink(folder / f"gone-{n}.md", entry(f"broken-{n}.md", "broken symbolic link"))
        target = outside / f"outside-{n}.md"
        target.write_text("# Outside\n\nNot to be followed.\n")
        os.symlink(target, entry(f"outside-{n}.md", "outside the ingested folders"))
    for n, ext in enumerate(("docx", "pdf", "xlsx", "pptx") * 5):
        reason = f"cannot read {ext.upper()}"
        entry(f"corrupt-{n}.{ext}", reason).write_bytes(rng.randbytes(rng.randint(10, 5000)))
    for n in range(5):
        damaged = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog" + rng.randbytes(200)
        entry(f"truncated-{n}.pdf", "cannot read PDF").write_bytes(damaged)
        text = f"Article {n}\n\nThe parties agree to the terms of clause {n}.\n"
        path = folder / f"utf16-{n}.txt"
        path.write_bytes(text.encode("utf-16-le"))  # no BOM
        good.add(str(path))
    for n in range(3):
        with open(entry(f"sparse-{n}.txt", "over max_file_mb"), "wb") as handle:
            handle.truncate(3 << 30)
    _bomb(entry("bomb.docx", "over max_zip_ratio"), "word/document.xml")
    _bomb(entry("bomb.pptx", "over max_zip_ratio"), "ppt/slides/slide1.xml")
    deep = {
        "deep-quotes.md": "> " * 5000 + "deep\n" + "- " * 3000 + "item\n",
        "deep-divs.html": "<div>" * 20_000 + "deep" + "</div>" * 20_000,
        "deep-numbering.txt": nested(300),
    }
    for name, text in deep.items():
        (folder / name).write_text(text)
        good.add(str(folder / name))
    return expected, good


def test_a_thousand_bad_files_in_one_ingest(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    expected, good = bad_folder(tmp_path / "bad", tmp_path / "outside")
    entries = len(expected) + len(good)
    assert entries >= 1000
    code, result = start_ingest(tmp_path / "index", [tmp_path / "bad"]).wait(timeout=600)
    assert code == EXIT_OK, result
    reasons = dict(result["problems"])
    wrong = {
        Path(path).name: (reason, reasons.get(path))
        for path, reason in expected.items()
        if reason not in (reasons.get(path) or "")
    }
    peak = result["maxrss_kb"]
    Figures(
        "bad_files",
        {"entries": entries, "crashes": int(code != EXIT_OK), "wrong_reasons": len(wrong),
         "indexed": len(result["added"]), "peak_rss_mb": round(peak / 1024)},
    ).save()  # fmt: skip
    assert not wrong, wrong
    assert set(result["added"]) == good
    assert peak < PEAK_RSS_LIMIT_KB
