"""Documents named in a query by a short form of their title or file name:
"the DPA", "FIPS 200", "the Pilot Agreement", "the Corporate Terms"; shared short names
narrow to every document that has them; prose and other numbers name nothing."""

from __future__ import annotations

import pytest

from hierdoc.models import DocumentRecord
from hierdoc.search.names import BY_LONG_FORM, DocumentNames
from hierdoc.text.names import DOCUMENT_WORDS, name_words_of
from hierdoc.text.short_names import short_names

TITLES = {
    "c/acme-data-processing-agreement.docx": "Data Processing Agreement",
    "c/acme-pilot-agreement.docx": "Pilot Agreement",
    "c/acme-software-license-agreement.docx": "Software License Agreement",
    "p/github-terms.md": "GitHub Terms of Service",
    "p/github-corporate-terms.md": "GitHub Corporate Terms of Service",
    "l/gpl.html": "GNU General Public License v3.0 - GNU Project - Free Software Foundation",
    "l/fdl.html": "GNU Free Documentation License - GNU Project - Free Software Foundation",
    "s/nist-fips-200.pdf": "Minimum Security Requirements for Federal Information Systems",
    "s/nist-sp-800-63b.pdf": "Digital Identity Guidelines",
    "s/nist-sp-800-124r1.pdf": "Guidelines for Managing the Security of Mobile Devices",
}
#: Scientific abstracts (BEIR SciFact) beside them: their titles give short names
#: ("Apolipoprotein E4", "SHP-2") that claims write as topics, and gave the acronyms "PPAR"
#: and "TSP" of "placenta. Properties and allosteric regulation" (across a full stop) and
#: "long-term synaptic plasticity" (the "term" of "long-term" taken for a document word).
ABSTRACTS = {
    "sci/24906548": "Apolipoprotein E4 as a predictor of outcomes in pediatric mild traumatic"
    " brain injury.",
    "sci/18038250": "Control of CNS Cell-Fate Decisions by SHP-2 and Its Dysregulation in"
    " Noonan Syndrome",
    "sci/393001": "High Km soluble 5'-nucleotidase from human placenta. Properties and"
    " allosteric regulation by IMP and ATP.",
    "sci/10790846": "A rapamycin-sensitive signaling pathway contributes to long-term synaptic"
    " plasticity in the hippocampus.",
}


@pytest.fixture(scope="module")
def names() -> DocumentNames:
    titles = {**TITLES, **ABSTRACTS}
    return DocumentNames([DocumentRecord(s, t, "h", "x", 1) for s, t in titles.items()])


@pytest.mark.parametrize(
    ("query", "sources", "rest"),
    [
        ("Section 3.2 of the DPA", ["c/acme-data-processing-agreement.docx"], "Section 3.2 of the"),
        ("Section 5.2 of the Pilot Agreement", ["c/acme-pilot-agreement.docx"], None),
        ("Section D.3 of the Corporate Terms", ["p/github-corporate-terms.md"], None),
        ("Section D.4 of the GitHub Terms", ["p/github-terms.md"], None),
        ("Section 16 of the General Public License", ["l/gpl.html"], None),
        ("Section 7 of the Free Documentation License", ["l/fdl.html"], None),
        ("FIPS 200 Section 3", ["s/nist-fips-200.pdf"], "Section 3"),
        ("Section 5.2.2 of SP 800-63B", ["s/nist-sp-800-63b.pdf"], None),
        ("Section 7.1.1 of NIST SP 800-63B", ["s/nist-sp-800-63b.pdf"], None),
        # a file named with its revision is cited with or without it
        ("Section 4 of NIST SP 800-124", ["s/nist-sp-800-124r1.pdf"], None),
        ("Section 4 of SP 800-124r1", ["s/nist-sp-800-124r1.pdf"], None),
        ("the GPL 3.0 patent clause", ["l/gpl.html"], None),
        # after "the" and going on with prose or a version, not with another term
        ("what does the DPA say about deletion", ["c/acme-data-processing-agreement.docx"], None),
        ("Under the DPA, who pays for audits?", ["c/acme-data-processing-agreement.docx"], None),
        ("the DPA (signed 2024) on audits", ["c/acme-data-processing-agreement.docx"], None),
        ("the GPL v3 on patents", ["l/gpl.html"], None),
        ("the FIPS 200 baseline for low-impact systems", ["s/nist-fips-200.pdf"], None),
        ("Section 4 of the SHP-2 MAPK pathway", ["sci/18038250"], None),  # cites: a name
    ],
)
def test_a_short_name_names_its_document(
    names: DocumentNames, query: str, sources: list[str], rest: str | None
) -> None:
    naming = names.named(query)
    assert naming is not None and list(naming.sources) == sources
    assert naming.how == "by a short name"
    if rest is not None:
        assert naming.rest(query) == rest


def test_a_short_name_several_documents_share_names_them_all(names: DocumentNames) -> None:
    naming = names.named("what do the Terms of Service say about refunds")
    assert naming is not None
    assert set(naming.sources) == {"p/github-terms.md", "p/github-corporate-terms.md"}
    naming = names.named("the TOS on refunds")
    assert naming is not None
    assert set(naming.sources) == {"p/github-terms.md", "p/github-corporate-terms.md"}


@pytest.mark.parametrize(
    "query",
    [
        "which general public license terms apply",  # prose: not capitalised as a name
        "what does the dpa require",  # an acronym is written in capitals
        "Section 4 of SP 800-53",  # another identifier of the same series
        "Section 200",  # a number is not a name
        "the Agreement and the License",  # document words alone
        "the Free Software Foundation",  # a title phrase without a document word
    ],
)
def test_prose_and_other_identifiers_name_nothing(names: DocumentNames, query: str) -> None:
    assert names.named(query) is None


def test_a_full_title_written_out_is_named_as_written(names: DocumentNames) -> None:
    naming = names.named("Section 3 of the Data Processing Agreement")
    assert naming is not None and naming.how == "as written"
    assert naming.sources == ("c/acme-data-processing-agreement.docx",)


@pytest.mark.parametrize(
    "query",
    [
        "TDP-43 inhibition blocks neuronal loss",  # an identifier-like topic word
        "FIPS 200 controls reduce risk",  # no citation, no document word, not after "the"
        # after "the", but one word of a compound term: another term in capitals follows
        "Lymphadenopathy is observed in knockin mouse lacking the SHP-2 MAPK pathway.",
        "Female carriers of the Apolipoprotein E4 (APOE4) allele have increased risk.",
        # not after "the", and no citation: the "PAR li" of "PPAR ligands" and the "ch c"
        # of "which cross-react" are inside words (tests/unit/test_numbering.py)
        "PPAR-RXRs are inhibited by PPAR ligands.",
        "HAM/TSP patients produce antibodies which cross-react with an epitope in Tax.",
    ],
)
def test_a_short_name_in_a_query_about_no_document_names_nothing(
    names: DocumentNames, query: str
) -> None:
    assert names.named(query) is None


def _short(title: str, source: str = "x/doc") -> set[str]:
    """The short names of a document titled so, as "form words" ("acronym dpa")."""
    return {
        n.value for n in short_names(DocumentRecord(source, title, "h", "x", 1), DOCUMENT_WORDS)
    }


GDPR = (
    "Regulation (EU) 2016/679 of the European Parliament and of the Council of 27 April 2016"
    " on the protection of natural persons with regard to the processing of personal data and"
    " on the free movement of such data, and repealing Directive 95/46/EC (General Data"
    " Protection Regulation)"
)


@pytest.mark.parametrize(
    ("title", "kept"),
    [
        ("GitHub Terms of Service", {"acronym tos", "phrase terms of service"}),
        ("Data Processing Agreement", {"acronym dpa", "phrase data processing agreement"}),
        (GDPR, {"acronym gdpr", "phrase general data protection regulation"}),
        ("GNU General Public License v3.0", {"acronym gpl", "phrase general public license v3"}),
        ("Software License Agreement", {"acronym sla", "phrase software license"}),
        # a document word followed by another word still heads the run ending with it
        (
            "non-disclosure-agreement-template.txt",
            {"acronym nda", "phrase non disclosure agreement"},
        ),
        # an abbreviation is no end of a sentence
        ("Federal Register Vol. 85, No. 162", {"identifier vol 85"}),
        # a name written in mixed case is one word ("LaTeX"), as a file stem is split
        (
            "The LaTeX Project Public License",
            {"acronym lppl", "phrase latex project public license"},
        ),
        ("DataProcessingAgreement.docx", {"acronym dpa"}),
    ],
)
def test_a_formal_title_keeps_its_short_names(title: str, kept: set[str]) -> None:
    assert kept <= _short(title)


def test_an_acronym_runs_within_one_sentence_of_a_title() -> None:
    found = _short(ABSTRACTS["sci/393001"])
    assert "acronym ppar" not in found
    assert not [name for name in found if "placenta properties" in name]
    assert "acronym par" in found  # the second sentence alone, as any title phrase


@pytest.mark.parametrize(
    ("title", "described"),
    [
        (ABSTRACTS["sci/10790846"], "plasticity"),  # no "TSP" of "term synaptic plasticity"
        ("Transcription regulation networks in yeast", "networks"),  # no "TRN"
        ("Series A Term Sheet", "sheet"),  # a term sheet is no "Terms"
    ],
)
def test_a_document_word_describing_the_next_word_names_nothing_with_it(
    title: str, described: str
) -> None:
    assert not [name for name in _short(title) if described in name.split()]
    assert not [name for name in _short(title) if name.startswith("acronym")]


def test_term_names_a_document_in_the_plural_only() -> None:
    """A document is "Terms" ("the Corporate Terms"); the "term" of "long-term" is a span of
    time, and "long term" no name."""
    assert _short(ABSTRACTS["sci/10790846"]) == set()
    assert "phrase corporate terms" in _short("Corporate Terms")


@pytest.mark.parametrize("query", ["Section 2 of the PPAR", "Section 4 of the TSP"])
def test_acronyms_across_a_sentence_or_of_a_described_word_name_nothing(
    names: DocumentNames, query: str
) -> None:
    """A citation makes any short name a name: these were the abstracts' acronyms."""
    assert names.named(query) is None


#: Regulatory documents filed as a publisher files them: abbreviations ("GEN", "ADGM")
#: before the title, version and date stamps after it.
FILED = {
    "ADGM_Guidance_-_Application_of_English_Laws.txt": "Application of English Laws",
    "Guidance - Virtual Asset Activities in ADGM (VER05.181223).txt": "Introduction",
    "Guidance - Regulation of Spot Commodities Activities in ADGM (VER02.181223).txt": "Scope",
    "Guidance - Continuous Disclosure_VER01.280922.txt": "Introduction",
    "Guidance - Disclosure Requirements for Mining Entities_VER01.280922.txt": "Mining",
    "Guidance - Disclosure Requirements for Petroleum Entities_VER01.280922.txt": "Petroleum",
    "API - Guidance Note_Final 14 October 2019 Eng.txt": "Introduction",
    "FUNDS_VER08.040723.txt": "Fund Rules",
    "GEN_VER08.181223.txt": "GEN_VER08.181223",
}


@pytest.fixture(scope="module")
def filed() -> DocumentNames:
    return DocumentNames([DocumentRecord(s, t, "h", "x", 1) for s, t in FILED.items()])


@pytest.mark.parametrize(
    ("query", "source"),
    [
        ("Rule 5.3.6 of GEN", "GEN_VER08.181223.txt"),
        # "ADGM" is the abbreviation of one file and a word of other files' names: the
        # query's other name words pick among them
        (
            "Section 38 of Guidance – Regulation of Virtual Asset Activities in ADGM",
            "Guidance - Virtual Asset Activities in ADGM (VER05.181223).txt",
        ),
        # neither the "Rule" of the citation ("Fund Rules") nor the stamps ("VER01",
        # "280922") are words of the name the query writes
        (
            "Rule 7.2.1 of Guidance – Continuous Disclosure",
            "Guidance - Continuous Disclosure_VER01.280922.txt",
        ),
    ],
)
def test_a_filed_document_is_named_by_its_title_words_beside_shared_abbreviations(
    filed: DocumentNames, query: str, source: str
) -> None:
    naming = filed.named(query)
    assert naming is not None and naming.sources == (source,)


def test_file_stamps_are_no_words_of_a_name() -> None:
    assert name_words_of("Guidance - Continuous Disclosure_VER01.280922") == {
        "guidance",
        "continuou",
        "disclosure",
    }
    assert name_words_of("GPL v3 2019") == {"gpl", "v3", "2019"}


def test_the_long_form_of_an_abbreviation_names_its_file_in_a_citation(
    filed: DocumentNames,
) -> None:
    def long_forms() -> dict[str, list[str]]:
        return {"application programming interfaces": ["APIs"]}

    query = "Section 13 of Guidance – Application Programming Interfaces (APIs) in ADGM"
    naming = filed.named(query, long_forms=long_forms)
    assert naming is not None and naming.how == BY_LONG_FORM
    assert naming.sources == ("API - Guidance Note_Final 14 October 2019 Eng.txt",)
    assert naming.rest(query) == "Section 13 of Guidance – (APIs) in ADGM"
    topic = filed.named("how do Application Programming Interfaces work", long_forms=long_forms)
    assert topic is None or topic.how != BY_LONG_FORM


@pytest.mark.parametrize(
    "query",
    ["Section 2.3.3 of the Acme DPA", "Section 4.4 of the Acme Data Processing Addendum"],
)
def test_an_addendum_is_named_beside_another_document_of_its_publisher(query: str) -> None:
    titles = {
        "p/acme-data-processing-addendum.pdf": "ACME DATA PROCESSING ADDENDUM (Last updated"
        " April 20, 2023)",
        "p/acme-terms-of-service.html": "Terms of Service",
        "p/acme-privacy-policy.html": "Acme Privacy Policy",
    }
    names = DocumentNames([DocumentRecord(s, t, "h", "x", 1) for s, t in titles.items()])
    naming = names.named(query)
    assert naming is not None and naming.sources == ("p/acme-data-processing-addendum.pdf",)
    assert naming.rest(query).startswith("Section ")
