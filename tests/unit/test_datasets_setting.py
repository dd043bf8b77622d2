"""One setting finds the benchmark corpora: ``$HIERDOC_DATASETS``, else ../shared/datasets
beside the repository, decided by :func:`hierdoc.eval.datasets.default_datasets` alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hierdoc.eval.datasets import default_datasets, load_dataset
from tests.paths import REPOSITORY

#: "shared" and "datasets" near each other: a path to the corpora written out
#: ("../shared/datasets", parent / "shared" / "datasets", "shared/datasets").
WRITTEN_PATH = re.compile(r"shared\W{1,8}datasets")
#: Reading the variable instead of asking default_datasets().
READS_VARIABLE = re.compile(r"(?:environ\.get|getenv)\(\s*[\"']HIERDOC_DATASETS")


def test_the_variable_names_the_folder(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HIERDOC_DATASETS", str(tmp_path))
    assert default_datasets() == tmp_path


@pytest.mark.parametrize("value", [None, ""])
def test_without_it_the_folder_is_beside_the_repository(monkeypatch, value) -> None:
    if value is None:
        monkeypatch.delenv("HIERDOC_DATASETS", raising=False)
    else:
        monkeypatch.setenv("HIERDOC_DATASETS", value)
    assert default_datasets() == REPOSITORY.parent / "shared" / "datasets"


def test_a_dataset_loaded_by_name_is_read_from_that_folder(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HIERDOC_DATASETS", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "scifact"))):
        load_dataset("scifact")


#: Where the default is decided, and this test.
ALLOWED = {REPOSITORY / "src" / "hierdoc" / "eval" / "datasets.py", Path(__file__).resolve()}


def scripts() -> list[Path]:
    """Every text file of the code, the tests and the benchmarks, but the two allowed."""
    found = [
        path
        for folder in ("src", "tests", "benchmarks")
        for path in sorted((REPOSITORY / folder).rglob("*"))
        if path.suffix in {".py", ".yaml", ".md", ".toml"} and path.resolve() not in ALLOWED
    ]
    assert len(found) > 100
    return found


def test_no_code_test_or_benchmark_writes_the_datasets_path_or_reads_the_variable() -> None:
    offenders = [
        f"{path.relative_to(REPOSITORY)}:{number}: {line.strip()}"
        for path in scripts()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if WRITTEN_PATH.search(line) or READS_VARIABLE.search(line)
    ]
    assert not offenders, "use hierdoc.eval.datasets.default_datasets():\n" + "\n".join(offenders)


@pytest.mark.parametrize(
    "line",
    [
        'SCIFACT = Path("/work/shared/datasets/scifact")',
        'default=Path("../shared/datasets")',
        'ROOT.parent / "shared" / "datasets"',
        'os.environ.get("HIERDOC_DATASETS", ROOT)',
    ],
)
def test_the_check_sees_the_ways_of_writing_it(line: str) -> None:
    assert WRITTEN_PATH.search(line) or READS_VARIABLE.search(line)
