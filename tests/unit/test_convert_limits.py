"""Bounded inputs: size and zip limits, text sniffing, and files that are not regular files."""

from __future__ import annotations

import os
import resource
import sys
import time
import tracemalloc
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hierdoc import Index, Settings
from hierdoc.models import FileProblem
from hierdoc.pipeline.convert import ConversionError, convert_file, discover_files, file_hash
from hierdoc.pipeline.limits import Limits, sniff_text
from tests.hash_embedder import HashEmbedder

posix = pytest.mark.skipif(os.name != "posix", reason="needs POSIX files (FIFOs, symlinks)")
MB = 1 << 20
GOOD = "# Good Agreement\n\n## Section 1 - Payment\n\nThe Buyer pays within thirty days.\n"
UTF16_TEXT = "§ 4.2 Haftung\nDer Café zahlt.\n"


def _max_rss_bytes() -> int:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024


@pytest.fixture(scope="module")
def zip_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 4.5 MB .docx whose one member unpacks to 1 GB of zeros, written in 1 MB blocks."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.docx"
    block = bytes(MB)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            for _ in range(1024):
                member.write(block)
    return path


@pytest.fixture(scope="module")
def sparse_txt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2 GB sparse .txt (no disk space used): zeros and one 'x' at the end."""
    path = tmp_path_factory.mktemp("sparse") / "huge.txt"
    with open(path, "wb") as fh:
        fh.seek(2**31)
        fh.write(b"x")
    return path


def _refused(path: Path, limits: Limits | None = None) -> tuple[str, float, int, int]:
    """Reason, seconds, peak traced Python memory and max-RSS growth of a refused conversion."""
    rss_before = _max_rss_bytes()
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(ConversionError) as info:
            convert_file(path, limits=limits)
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return info.value.reason, seconds, peak, _max_rss_bytes() - rss_before


# --------------------------------------------------------------------------- limits


def test_zip_bomb_docx_is_refused_quickly_without_unpacking(zip_bomb: Path) -> None:
    assert zip_bomb.stat().st_size < 10 * MB
    reason, seconds, peak, rss_growth = _refused(zip_bomb)
    assert reason.startswith("DOCX member word/document.xml unpacks ")
    assert "over max_zip_ratio 100" in reason
    assert seconds < 5
    assert peak < 20 * MB
    assert rss_growth < 100 * MB


def test_zip_bomb_total_size_limit_when_ratio_allowed(zip_bomb: Path) -> None:
    reason, _, peak, _ = _refused(zip_bomb, Limits(max_zip_ratio=10_000))
    assert reason == "DOCX unpacks to 1,024 MB, over max_unzipped_mb 500"
    assert peak < 20 * MB


def test_zip_member_count_limit(tmp_path: Path) -> None:
    path = tmp_path / "many.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        for number in range(12):
            archive.writestr(f"xl/part{number}.xml", "<x/>")
    with pytest.raises(ConversionError) as info:
        convert_file(path, limits=Limits(max_zip_members=10))
    assert info.value.reason == "XLSX zip has 12 members, over max_zip_members 10"


def test_sparse_2gb_txt_is_refused_by_size_without_reading(sparse_txt: Path) -> None:
    reason, seconds, peak, rss_growth = _refused(sparse_txt)
    assert reason == "file is 2,048 MB, over max_file_mb 200"
    assert seconds < 1
    assert peak < MB
    assert rss_growth < 50 * MB


def test_sparse_2gb_txt_within_size_limit_is_binary_from_its_first_bytes(
    sparse_txt: Path,
) -> None:
    reason, seconds, peak, rss_growth = _refused(sparse_txt, Limits(max_file_mb=4096))
    assert reason == "binary content, not text"
    assert seconds < 1
    assert peak < 2 * MB
    assert rss_growth < 50 * MB


def test_file_hash_with_limits_refuses_before_reading(sparse_txt: Path) -> None:
    started = time.perf_counter()
    with pytest.raises(ConversionError, match=r"over max_file_mb 200$"):
        file_hash(sparse_txt, Limits())
    assert time.perf_counter() - started < 1


def test_max_chars_limit(tmp_path: Path) -> None:
    path = tmp_path / "long.md"
    path.write_text("# Long\n\n" + "word " * 300)
    with pytest.raises(ConversionError) as info:
        convert_file(path, limits=Limits(max_chars=1000))
    assert info.value.reason == "text has 1,508 characters, over max_chars 1000"
    assert convert_file(path).title == "Long"


def test_limits_come_from_settings() -> None:
    settings = Settings(max_file_mb=1, max_unzipped_mb=2, max_zip_ratio=3, max_chars=4)
    assert Limits.from_settings(settings) == Limits(1, 2, 3, 10_000, 4)
    assert Limits.from_settings(Settings()) == Limits()
    assert Settings().follow_symlinks_outside is False


# --------------------------------------------------------------------------- text sniffing


@pytest.mark.parametrize("name", ["noise.md", "noise.txt", "noise.html"])
def test_random_bytes_with_text_suffix_are_binary(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(os.urandom(256 * 1024))
    with pytest.raises(ConversionError, match="^binary content, not text$"):
        convert_file(path)


def test_random_bytes_without_nul_are_binary() -> None:
    noise = bytes(b for b in os.urandom(8192) if b)
    assert sniff_text(noise).binary


@pytest.mark.parametrize(("encoding", "name"), [("utf-16-le", "le.txt"), ("utf-16-be", "be.md")])
def test_utf16_without_bom_is_decoded(tmp_path: Path, encoding: str, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(UTF16_TEXT.encode(encoding))
    assert convert_file(path).text == UTF16_TEXT


def test_legacy_and_utf8_text_are_not_binary() -> None:
    assert not sniff_text("Straße, café, naïve\n".encode("cp1252")).binary
    assert not sniff_text("Договор купли-продажи\n".encode("cp1251")).binary
    assert not sniff_text("条款 4.2\n".encode()).binary
    assert not sniff_text(b"\x1b[1mbold\x1b[0m\tand\x0cform feed\n").binary


# --------------------------------------------------------------------------- files only


def _odd_entries(root: Path, outside: Path) -> dict[str, str]:
    """FIFO, symlink loop, symlink outside the root and broken symlink; name -> reason."""
    os.mkfifo(root / "pipe.md")
    (root / "loop_a.md").symlink_to(root / "loop_b.md")
    (root / "loop_b.md").symlink_to(root / "loop_a.md")
    (outside / "secret.md").write_text("# Secret\n\nNot part of the corpus.\n")
    (root / "escape.md").symlink_to(outside / "secret.md")
    (root / "dangling.md").symlink_to(root / "gone.md")
    return {
        "pipe.md": "not a regular file: FIFO",
        "loop_a.md": "symbolic link loop",
        "loop_b.md": "symbolic link loop",
        "escape.md": "symbolic link to a file outside the ingested folders, not followed"
        " (follow_symlinks_outside is false)",
        "dangling.md": "broken symbolic link",
    }


@pytest.fixture
def odd_folder(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    root, outside = tmp_path / "corpus", tmp_path / "elsewhere"
    root.mkdir()
    outside.mkdir()
    (root / "good.md").write_text(GOOD)
    yield root, _odd_entries(root, outside)


@posix
def test_discover_reports_each_odd_entry_with_its_true_reason(
    odd_folder: tuple[Path, dict[str, str]],
) -> None:
    root, expected = odd_folder
    files, problems = discover_files([root])
    assert files == [root / "good.md"]
    assert {Path(p.source).name: p.reason for p in problems} == expected


@posix
def test_symlink_outside_followed_when_asked(odd_folder: tuple[Path, dict[str, str]]) -> None:
    root, _ = odd_folder
    files, _ = discover_files([root], follow_symlinks_outside=True)
    assert root / "escape.md" in files


@posix
def test_symlink_to_another_given_root_is_followed(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (second / "real.md").write_text(GOOD)
    (first / "link.md").symlink_to(second / "real.md")
    files, problems = discover_files([first, second])
    assert files == [first / "link.md"]
    assert problems == []


@posix
def test_explicit_special_files(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "self.md").symlink_to(tmp_path / "self.md")
    _, problems = discover_files([tmp_path / "pipe.txt", tmp_path / "self.md", Path("/dev/null")])
    assert problems == [
        FileProblem(str(tmp_path / "pipe.txt"), "not a regular file: FIFO"),
        FileProblem(str(tmp_path / "self.md"), "symbolic link loop"),
        FileProblem("/dev/null", "not a regular file: character device"),
    ]


@posix
def test_convert_never_opens_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    with pytest.raises(ConversionError, match="^not a regular file: FIFO$"):
        convert_file(tmp_path / "pipe.md")
    with pytest.raises(ConversionError, match="^not a regular file: FIFO$"):
        file_hash(tmp_path / "pipe.md", Limits())


@posix
def test_folder_ingest_indexes_the_good_file_and_reports_every_bad_one(
    tmp_path: Path,
    odd_folder: tuple[Path, dict[str, str]],
    zip_bomb: Path,
    sparse_txt: Path,
) -> None:
    root, expected = odd_folder
    os.link(zip_bomb, root / "bomb.docx")
    os.link(sparse_txt, root / "huge.txt")
    (root / "noise.md").write_bytes(os.urandom(64 * 1024))
    settings = Settings(follow_symlinks_outside=False)
    with Index.open(tmp_path / "index", settings, embedder=HashEmbedder()) as index:
        started = time.perf_counter()
        report = index.ingest([root])
        seconds = time.perf_counter() - started
        assert [Path(source).name for source in report.added] == ["good.md"]
        assert index.stats().documents == 1
    problems = {Path(p.source).name: p.reason for p in report.problems}
    assert problems.pop("bomb.docx").endswith("over max_zip_ratio 100 (zip bomb?)")
    assert problems.pop("noise.md") == "binary content, not text"
    assert problems.pop("huge.txt") == "file is 2,048 MB, over max_file_mb 200"
    assert problems == expected
    assert seconds < 30
