"""Definitions in prose and plain glossaries: a section's opening sentence that
defines what its heading names, a condition after a quoted term, PDF table rows without
outer bars, terms set as sub-headings of a glossary."""

from __future__ import annotations

import time

import pytest

from hierdoc.pipeline.extract.definitions import find_definitions, is_definitions_heading


def pairs(text: str, in_section: bool = False) -> list[tuple[str, str]]:
    return [(item.term, item.definition) for item in find_definitions(text, in_section)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "##### 5.1.1 Memorized Secrets\n\nA Memorized Secret authenticator — commonly "
            "referred to as a password or, if\nnumeric, a PIN — is a secret value intended to be"
            " chosen and memorized by the\nuser. Memorized secrets need to be of sufficient "
            "complexity.\n",
            [
                (
                    "Memorized Secret",
                    "a secret value intended to be chosen and memorized by the user",
                )
            ],
        ),
        (
            "##### 5.1.3 Out-of-Band Devices\n\nAn out-of-band authenticator is a physical device"
            " that is uniquely addressable. The device is possessed by the claimant.\n",
            [("out-of-band authenticator", "a physical device that is uniquely addressable")],
        ),
        (
            "##### 5.1.6 Single-Factor Cryptographic Software\n\nA single-factor software "
            "cryptographic authenticator is a cryptographic key\nstored on disk or some other "
            '"soft" media. Authentication is accomplished by proving possession.\n',
            [
                (
                    "single-factor software cryptographic authenticator",
                    'a cryptographic key stored on disk or some other "soft" media',
                )
            ],
        ),
        (
            "##### 5.2.5 Verifier Impersonation Resistance\n\nVerifier impersonation attacks, "
            "sometimes referred to as “phishing attacks,” are attempts by\nfraudulent verifiers"
            " to fool an unwary claimant. In prior versions, they were not.\n",
            [
                (
                    "Verifier impersonation attacks",
                    "attempts by fraudulent verifiers to fool an unwary claimant",
                ),
                ("phishing attacks", "attempts by fraudulent verifiers to fool an unwary claimant"),
            ],
        ),
        (
            "### Revocation and Termination\n\nRevocation of an authenticator — sometimes referred"
            " to as termination, especially in the context\nof PIV authenticators — refers to "
            "removal of the binding between an authenticator and a credential.\n",
            [("Revocation", "removal of the binding between an authenticator and a credential")],
        ),
        (
            "### Authenticator Binding\n\nAuthenticator binding refers to the establishment of an"
            " association, e.g. a link, between an authenticator and an account. More.\n",
            [
                (
                    "Authenticator binding",
                    "the establishment of an association, e.g. a link, between an authenticator"
                    " and an account",
                )
            ],
        ),
    ],
)
def test_a_section_opening_sentence_defines_what_its_heading_names(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert pairs(text) == expected
    assert {item.style for item in find_definitions(text)} == {"opening"}


@pytest.mark.parametrize(
    "text",
    [
        # the subject is not what the heading names
        "### Preamble\n\nThe GNU General Public License is a free, copyleft license.\n",
        "## 12. Entire Agreement\n\nThe Agreement is the entire agreement of the parties.\n",
        "### 2 Introduction\n\nDigital identity is a unique representation of a subject.\n",
        # a description, not a definition: "are the", "are required", a modal verb
        "##### 7.1.1 Browser Cookies\n\nBrowser cookies are the predominant mechanism by which "
        "a session will be created.\n",
        "### Memorized Secrets\n\nMemorized secrets are required to be at least 8 characters.\n",
        "### Memorized Secrets\n\nMemorized secrets need to be of sufficient complexity.\n",
        "### Fees\n\nFees are payable within 30 days of the invoice.\n",
        # not the opening sentence of the section
        "### Look-Up Secrets\n\nThe claimant uses it.\n\nA look-up secret is a record.\n",
        # no heading opens the text
        "A look-up secret authenticator is a physical or electronic record.\n",
        # a pronoun or a clause as subject
        "### Scope\n\nThis scope is a list of the services covered.\n",
    ],
)
def test_opening_sentences_that_define_nothing(text: str) -> None:
    assert pairs(text) == []


def test_a_quoted_term_is_defined_by_the_extent_of_a_condition() -> None:
    text = (
        "An interactive user interface displays “Appropriate Legal Notices”\nto the extent that"
        " it includes a convenient and prominently visible\nfeature. Next sentence.\n"
    )
    assert pairs(text) == [
        (
            "Appropriate Legal Notices",
            "to the extent that it includes a convenient and prominently visible feature",
        )
    ]
    assert pairs("You must click “Accept” if you agree to these terms.\n") == []


def test_pdf_table_rows_of_a_glossary_define_their_first_cell() -> None:
    text = (
        "## Appendix A Glossary\n\nTerm | Definition\n"
        "Authenticator | Something the claimant possesses and controls (typically a "
        "cryptographic module or password) that is used to authenticate the claimant’s identity.\n"
        "Claimant | A subject whose identity is to be verified using one or more authentication "
        "protocols.\n"
        "CIO | Chief Information Officer\n"
    )
    assert pairs(text, in_section=True) == [
        (
            "Authenticator",
            "Something the claimant possesses and controls (typically a cryptographic module or "
            "password) that is used to authenticate the claimant’s identity",
        ),
        (
            "Claimant",
            "A subject whose identity is to be verified using one or more authentication protocols",
        ),
    ]
    # outside a definitions section a row is a table's, not a glossary entry, unless a
    # header names its columns as terms and definitions
    outside = text.replace("Glossary", "Contacts")
    assert pairs(outside.replace("Term | Definition\n", "")) == []
    assert [term for term, _ in pairs(outside)] == ["Authenticator", "Claimant"]


def test_terms_set_as_headings_of_a_glossary_are_defined_by_their_paragraph() -> None:
    text = (
        "#### Authenticator\n\nSomething the claimant possesses and controls that is used to\n"
        "authenticate the claimant.\n\nSee also Authentication.\n"
    )
    assert pairs(text, in_section=True) == [
        (
            "Authenticator",
            "Something the claimant possesses and controls that is used to authenticate the "
            "claimant",
        )
    ]
    assert pairs(text) == []  # a heading elsewhere names a section, not a term
    numbered = "#### 3.2 Fees\n\nThe fees payable under this Agreement.\n"
    assert pairs(numbered, in_section=True) == []
    sentence = "#### What is an authenticator?\n\nSomething the claimant possesses.\n"
    assert pairs(sentence, in_section=True) == []


def test_terminology_heads_a_definitions_section() -> None:
    assert is_definitions_heading("3 Terminology")
    assert is_definitions_heading("Terms and Definitions")
    assert not is_definitions_heading("Terminal Services")


def test_a_long_word_opening_a_section_is_read_in_linear_time() -> None:
    """The subject's words are split at whitespace only: a pattern that could split one long
    word into several took exponential time on a real document's first line."""
    text = "### Heading\n\n" + "Abcdefghijklmnopqrstuvwxyzabcdefghijklmnop " * 50
    started = time.perf_counter()
    assert pairs(text) == []
    assert time.perf_counter() - started < 0.5


def test_footnotes_that_say_what_something_is_define_it() -> None:
    text = (
        "to make commands.\n"
        "8 MCAS is a function of the Speed Trim System\n(STS), which is part of the flight "
        "control system. The STS provides automatic trim inputs.\n"
        "9 An AOA disagree alert, or ‘‘AOA DISAGREE’’ on\nthe 737 MAX, is a visual alert on the"
        " PFDs. It is shown.\n"
        "10 A flight control law generates commands to\nmove flight control surfaces. Flight "
        "control laws reside in software.\n"
        "11 Stall warning indication is the activation of the\nstick shaker. An airspeed "
        "disagree alert, or ‘‘IAS DISAGREE’’ on the 737 MAX, is a visual alert on the PFDs.\n"
    )
    assert pairs(text) == [
        (
            "MCAS",
            "a function of the Speed Trim System (STS), which is part of the flight control system",
        ),
        ("AOA disagree alert", "a visual alert on the PFDs"),
        ("flight control law", "generates commands to move flight control surfaces"),
        ("Stall warning indication", "the activation of the stick shaker"),
        ("airspeed disagree alert", "a visual alert on the PFDs"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        # a body paragraph, not a footnote: no number opens it
        "The FAA is the agency that regulates aviation. MCAS is a function of the STS.\n",
        # a number that continues a sentence ("... within\n10 seconds.") opens no footnote
        "the alert shows after more than\n10 Seconds is a long time for a pilot.\n",
        # a numbered clause read as a footnote: "is made that" is no noun phrase
        "in writing.\n12 The Disclosers give no warranty. No representation or warranty is "
        "made that the Confidential Information shall remain unchanged.\n",
        # "is the" and a generic verb only in a footnote's sentences of the right shape
        "3 The horizontal stabilizer, which is controlled by trim, moves.\n",
    ],
)
def test_text_that_is_no_footnote_definition(text: str) -> None:
    assert pairs(text) == []


def test_for_the_purposes_of_a_document_each_clause_defines() -> None:
    text = (
        "the fuselage. For the purposes of this NPRM, ‘‘high’’\nAOA is a relatively large angle"
        " (associated with\nflight conditions outside of the normal flight\nenvelope), and "
        "‘‘low’’ AOA is a relatively small\nangle (associated with flight conditions within "
        "the\nnormal flight envelope). Next.\n"
    )
    assert pairs(text) == [
        (
            "high AOA",
            "a relatively large angle (associated with flight conditions outside of the"
            " normal flight envelope)",
        ),
        (
            "low AOA",
            "a relatively small angle (associated with flight conditions within the "
            "normal flight envelope)",
        ),
    ]
    passive = "For the purposes of the preceding sentence, equipment is used by an agency if it is."
    assert pairs(passive) == []


def test_doubled_single_quotes_of_government_typography_quote_a_term() -> None:
    text = "3 An airplane’s nose-up or nose-down attitude is\nknown as its ‘‘pitch attitude.’’ On"
    assert pairs(text) == [("pitch attitude", "An airplane’s nose-up or nose-down attitude")]
    assert pairs("The ‘‘Agreement’’ means this agreement.") == [("Agreement", "this agreement")]


def test_a_quoted_label_or_a_repeated_numbered_name_defines_nothing() -> None:
    labelled = "These markers, labeled\n‘‘INOP,’’ indicate that one of the\npositions is off."
    assert pairs(labelled) == []
    repeated = "This AD replaces AD 2018–23–51,\nAmendment 39–19512 (‘‘AD 2018–23–51’’).\n"
    assert pairs(repeated) == []
    court = "the Court of Justice of the European Union (the ‘Court of Justice’)"
    assert [term for term, _ in pairs(court)] == ["Court of Justice"]


def test_this_and_hereafter_name_a_term() -> None:
    text = (
        "This Non-Disclosure Agreement (this “Agreement”) is entered into by Foo Ltd. A Party"
        " disclosing its Confidential Information to the other Party is hereafter referred to"
        " as a “Disclosing Party.” A Party receiving the Confidential Information is hereafter"
        " referred to as a “Receiving Party.” The Parties agree as follows.\n"
    )
    assert pairs(text) == [
        ("Agreement", "This Non-Disclosure Agreement"),
        (
            "Disclosing Party",
            "A Party disclosing its Confidential Information to the other Party",
        ),
        ("Receiving Party", "A Party receiving the Confidential Information"),
    ]


def test_bulleted_glossary_entries_opening_it_is_or_this() -> None:
    text = (
        "• Black box testing – It is a method of software testing that examines the"
        " functionality of an application.\n\n"
        "• Two-factor authentication (2FA) - This adds a second level of authentication.\n\n"
        "• What You See Is What You Get (WYSIWYG) - A type of rich content editor.\n\n"
        "• X.509 Certificate – An X.509 certificate is a digital certificate.\n\n"
        "Note – This list is not complete.\n"
    )
    assert pairs(text, in_section=True) == [
        (
            "Black box testing",
            "It is a method of software testing that examines the functionality of an application",
        ),
        ("Two-factor authentication (2FA)", "This adds a second level of authentication"),
        ("What You See Is What You Get (WYSIWYG)", "A type of rich content editor"),
        ("X.509 Certificate", "An X.509 certificate is a digital certificate"),
    ]
