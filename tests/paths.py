"""Places the tests share: the tests folder (fixtures, real documents) and the repository."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPOSITORY = TESTS.parent
FIXTURES = TESTS / "fixtures"
