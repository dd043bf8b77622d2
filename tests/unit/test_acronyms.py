"""Acronyms: retirement-plan fixtures, GDPR, HR 8847, quoted forms and citations that are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from hierdoc.pipeline.extract.acronyms import FoundAcronym, find_acronyms
from hierdoc.text.normalize import normalize_acronym, normalize_phrase
from tests.datasets import GDPR_MD, GDPR_TXT, HR8847_PDF, require
from tests.paths import TESTS

FIXTURES = TESTS / "fixtures" / "acronyms"

FIXTURE_PAIRS = {
    "automatic_enrollment.md": [
        ("ACA", "Automatic Contribution Arrangement"),
        ("EACA", "Eligible Automatic Contribution Arrangement"),
        ("QACA", "Qualified Automatic Contribution Arrangement"),
        ("QDIA", "qualified default investment alternative"),
    ],
    "notices_and_deadlines.md": [
        ("DOL", "Department of Labor"),
        ("ERISA", "Employee Retirement Income Security Act"),
    ],
    "nondiscrimination_testing.md": [
        ("HCE", "highly compensated employee"),
        ("NHCE", "non-highly compensated employee"),
        ("ADP", "actual deferral percentage"),
        ("ACP", "actual contribution percentage"),
        ("IRS", "Internal Revenue Service"),
    ],
    "hardship_and_relief.md": [
        ("COVID-19", "coronavirus disease 2019"),
        ("SMEs", "small and medium-sized enterprises"),
        ("PEP", "pooled employer plan"),
    ],
}

GDPR_PAIRS = [
    ("TFEU", "Treaty on the Functioning of the European Union"),
    ("DNA", "deoxyribonucleic acid"),
    ("RNA", "ribonucleic acid"),
    ("CERTs", "computer emergency response teams"),
    ("CSIRTs", "computer security incident response teams"),
    ("TEU", "Treaty on European Union"),
]

HR8847_PAIRS = [
    ("PUE", "power usage effectiveness"),
    ("CDS", "Clinical decision support"),
    ("FERPA", "Family Educational Rights and Privacy Act"),
    ("CNN", "CONVOLUTIONAL NEURAL NETWORK"),
    ("PCA", "principal component analysis"),
    ("FLOPS", "FLOATING-POINT OPERATIONS"),
    ("NAS", "NEURAL ARCHITECTURE SEARCH"),
    ("RNN", "RECURRENT NEURAL NETWORK"),
    ("RLHF", "REINFORCEMENT LEARNING FROM HUMAN FEEDBACK"),
]


def _pairs(found: list[FoundAcronym]) -> list[tuple[str, str]]:
    return [(a.acronym, a.long_form) for a in found]


def _check_spans(text: str, found: list[FoundAcronym]) -> None:
    """Each span holds its long form and acronym, ends at the parenthesis, in text order."""
    assert [a.start for a in found] == sorted(a.start for a in found)
    for item in found:
        span = " ".join(text[item.start : item.end].split())
        assert span.endswith(")")
        assert item.long_form in span and item.acronym in span


@pytest.mark.parametrize("name", sorted(FIXTURE_PAIRS))
def test_fixture_acronyms(name: str) -> None:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    found = find_acronyms(text)
    assert _pairs(found) == FIXTURE_PAIRS[name]
    _check_spans(text, found)


def test_fixtures_use_acronyms_defined_elsewhere() -> None:
    """Shared letters do not mix long forms up, and bare uses are not definitions."""
    notices = (FIXTURES / "notices_and_deadlines.md").read_text(encoding="utf-8")
    assert "EACA notice" in notices and "QACA safe harbor" in notices
    assert {a.acronym for a in find_acronyms(notices)} == {"DOL", "ERISA"}
    everything = "\n\n".join(
        (FIXTURES / name).read_text(encoding="utf-8") for name in sorted(FIXTURE_PAIRS)
    )
    by_acronym = {normalize_acronym(a.acronym): a.long_form for a in find_acronyms(everything)}
    assert by_acronym["aca"] == "Automatic Contribution Arrangement"
    assert by_acronym["eaca"] == "Eligible Automatic Contribution Arrangement"
    assert by_acronym["qaca"] == "Qualified Automatic Contribution Arrangement"
    assert by_acronym["sme"] == "small and medium-sized enterprises"


@pytest.mark.parametrize("path", [GDPR_MD, GDPR_TXT], ids=["md", "txt"])
def test_gdpr_acronyms(path: Path) -> None:
    text = require(path).read_text(encoding="utf-8")
    found = find_acronyms(text)
    # "Regulation (EU)", "Directive (EU)" and "Regulation (EC)" are citations, not acronyms;
    # GDPR writes "micro, small and medium-sized enterprises" without an acronym
    assert _pairs(found) == GDPR_PAIRS
    _check_spans(text, found)


def test_hr8847_acronyms() -> None:
    from hierdoc.pipeline.convert import convert_file

    text = convert_file(require(HR8847_PDF)).text
    found = find_acronyms(text)
    assert _pairs(found) == HR8847_PAIRS
    _check_spans(text, found)


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        (
            'The plan keeps an Eligible Automatic Contribution Arrangement (the "EACA").',
            ("EACA", "Eligible Automatic Contribution Arrangement"),
        ),
        (
            "It also runs a Qualified Automatic Contribution Arrangement (“QACA”) for staff.",
            ("QACA", "Qualified Automatic Contribution Arrangement"),
        ),
        (
            "Article 16 of the Treaty on the Functioning of the European Union (‘TFEU’) applies.",
            ("TFEU", "Treaty on the Functioning of the European Union"),
        ),
        (
            "Controls follow National Institute of Standards and Technology 800 (NIST-800).",
            ("NIST-800", "National Institute of Standards and Technology 800"),
        ),
        (
            "Tests apply to highly compensated employees (HCEs, as defined in section 2).",
            ("HCEs", "highly compensated employees"),
        ),
        (
            "Fleet data come from the Global Positioning System (GPS).",
            ("GPS", "Global Positioning System"),
        ),
        ("Guidance from the DOL (Department of Labor) applies.", ("DOL", "Department of Labor")),
        ("the U.S. Department of Labor (DOL) said", ("DOL", "Department of Labor")),
        ("devices on the Internet of Things (IoT)", ("IoT", "Internet of Things")),
        # a rulebook abbreviated by its publisher, not by its initials
        ("as set out in the General Rulebook (“GEN”) and", ("GEN", "General Rulebook")),
        ("read with FSMR and the Market Rules (MKT).", ("MKT", "Market Rules")),
        (
            "suitability in the FSRA Conduct of Business Rulebook (“COBS”)",
            ("COBS", "Conduct of Business Rulebook"),
        ),
        (
            "the Prudential – Investment, Insurance Intermediation and Banking Rules (“PRU”)",
            ("PRU", "Prudential – Investment, Insurance Intermediation and Banking Rules"),
        ),
    ],
)
def test_acronym_forms(text: str, pair: tuple[str, str]) -> None:
    assert _pairs(find_acronyms(text)) == [pair]


@pytest.mark.parametrize(
    "text",
    [
        "as set out in paragraph (a) of this Article",
        "under the rules adopted in 2016 (2016)",
        "the amounts in the table (see below)",
        "processing under Article 6(1) and Article 9(2)(a)",
        "the limits (This sentence explains the limit in full.)",
        "the widget (note) is small",
        "the Plan Sponsor (XYZ) signs",
        "a Very Long Plan Name Indeed Here (ABCDEFGHIJK)",
        "exercised in accordance with Regulation (EU) 2016/679",
        "the Secretary of the Treasury (the Secretary)",
        "| Priority rulemakings (NPRM) | 12 months |",
        'the Regents of the University ("UNIVERSITY")',
        "as the Plan Rules (XR) say",  # the title does not begin with the first letter
        "under the rules (GEN)",  # no title: a rule word alone, in lower case
    ],
)
def test_not_acronyms(text: str) -> None:
    assert find_acronyms(text) == []


def test_each_pair_once_per_text() -> None:
    text = (
        "A highly compensated employee (HCE) is tested. Each highly compensated employee (HCE) "
        "is listed. The Health Care Exchange (HCE) is something else."
    )
    assert _pairs(find_acronyms(text)) == [
        ("HCE", "highly compensated employee"),
        ("HCE", "Health Care Exchange"),
    ]


@pytest.mark.parametrize("spelling", ["EACA", "eaca", "E.A.C.A.", "E-A-C-A", " EACA "])
def test_normalize_acronym(spelling: str) -> None:
    assert normalize_acronym(spelling) == "eaca"


def test_normalize_acronym_plural_and_digits() -> None:
    assert normalize_acronym("SMEs") == normalize_acronym("SME") == "sme"
    assert normalize_acronym("COVID-19") == "covid19"


def test_normalize_phrase() -> None:
    assert normalize_phrase("Small  and Medium-Sized\nEnterprises,") == (
        "small and medium sized enterprises"
    )
    assert normalize_phrase("Eligible Automatic Contribution Arrangement") == normalize_phrase(
        "eligible automatic contribution  arrangement."
    )


def test_define_answers_an_acronym_with_its_long_form(tmp_path: Path) -> None:
    """`hierdoc define NDA`: no document defines the acronym in words, one spells it out."""
    from hierdoc import Index
    from hierdoc.config import Settings
    from tests.hash_embedder import HashEmbedder

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "terms.md").write_text(
        "# Terms of Use\n\n## 1. Scope\n\nThis Non-Disclosure Agreement (NDA) covers the"
        " pilot.\n\n## 2. Fees\n\nFees are due monthly.\n",
        encoding="utf-8",
    )
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## 1. Fees\n\nNone.\n")
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as index:  # type: ignore[arg-type]
        index.ingest([tmp_path / "docs"])
        found = index.define("nda").definitions
        unknown = index.define("SLA").definitions
        elsewhere = index.define("NDA", source="other.md").definitions
    assert [(d.term, d.definition, d.style, d.section_id) for d in found] == [
        ("NDA", "Non-Disclosure Agreement", "acronym", "section-1")
    ]
    assert unknown == [] and elsewhere == []
