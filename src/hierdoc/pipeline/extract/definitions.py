"""Defined terms in formal documents.

These styles are recognised:

- ``means``: ``"X" means Y``, ``The term 'X' or 'Y' means Y``, ``'X' shall mean``, ``is
  defined as``, ``refers to``, ``includes``, ``indicate``, ``"X" (or "Y") means``,
  ``“copyleft”, which means``; a copula opening a sentence (``A “contributor” is a ...``,
  in a definitions section also ``An "Account" represents ...``, the verb kept in the
  text); ``Each licensee is addressed as “you”``, ``... is called an “aggregate”``; ``is
  "eligible for relicensing" if ...``; in a definitions section also an unquoted term
  opening a numbered item (``(3) Controller means ...``); an unquoted term its lead
  announces (``The term authorization refers to``, ``As used in this Agreement, Affiliate
  means``, ``We use the term X to mean``, ``By "X" we mean``, ``"X" is used to refer to``);
  a sentence whose verb says it defines (``Availability is defined as ...``, ``A
  significant change is one that ...``, ``A line is a series of characters that ...``);
  ``...; this is called "folding"``; ``To "Close the Connection", an endpoint closes ...``;
  ``"Processing" (including its various forms) means``; ``When we say "Services", we mean
  ...`` / ``..., we are referring to ...``; ``OpenStack "Project Teams" are groups of ...``;
  one capitalised word opening a sentence (``Suspension means you will not ...``);
- ``pointer``: ``"X" has the meaning given in Section 3.2`` / ``shall have the meaning set
  forth in ...``: the definition is elsewhere (:mod:`.definition_pointers` resolves it);
- ``parenthetical``: ``the Receiving Party (the "Recipient")``, ``(hereinafter "the
  Agreement")``, ``(‘data subject’)``, ``(together, the "Parties")``
  (:mod:`.definition_parens`);
- ``glossary``: ``Term: definition`` / ``Term — definition`` lines, only in a definitions
  section or a list a lead-in announces as definitions ("In this policy:", "The following
  terms have the following meanings:"; elsewhere "Note: ..." lines would be noise), and
  ``"Term": definition`` / ``"Term" - Means definition`` with real quotes anywhere; the
  terms of a definition list (an HTML ``<dl>``, ``Term`` then ``:   definition``),
  anywhere; in a definitions section, a standard's numbered entries ("3.2" / "attack" /
  "attempt to destroy, ...");
- ``table``: Markdown ``| Term | Definition |`` rows, in a definitions section or under a
  header that names a term and a definition/meaning column; rows written as text (cells
  split by a tab or " | ") under such a header, or in a definitions section; a cover
  page's key terms (``| **Governing Law** | The laws of ... |``) (:mod:`.definition_lists`);
  also ``glossary``: a glossary's sub-heading that is only a term, defined by the paragraph
  under it;
- ``glossary`` / ``table`` by shape: three or more consecutive entries written alike
  (term, separator, text) anywhere (:mod:`.definition_runs`);
- ``opening``: the opening sentence of a section defining what its heading names ("5.1.1
  Memorized Secrets" / "A Memorized Secret authenticator ... is a secret value ...",
  :mod:`.definition_opening`); in a definitions section, any paragraph opening with what
  its subject is ("Relying parties are entities that ...").

A term may be quoted, emphasised or both (``**"Term"**``, ``"**Term**"``, ``*Term*``,
``<u>Term</u>``): :mod:`.definition_markup` reads emphasis as quotes. Where an item or
paragraph ends, and the cells of a table, are read by :mod:`.layout`. Everything here is a
pure function over text; offsets index the input string. Terms and definitions are
returned with whitespace collapsed (PDF text wraps lines mid-term) and without markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from ...text.normalize import normalize_term
from .definition_lists import (
    bare_row_definitions,
    column_definitions,
    described_definitions,
    entry_definitions,
    glossary_definitions,
    heading_definitions,
    indented_definitions,
    pointed_definitions,
    spaced_colon_definitions,
    table_definitions,
)
from .definition_markup import QTERM, QTERM_ANON, QUOTED_TERM, Unmarked, term_at, unmark
from .definition_opening import (
    footnote_definitions,
    opening_definitions,
    prose_definitions,
    purpose_definitions,
)
from .definition_parens import parenthetical_definitions
from .definition_runs import run_definitions
from .definition_text import (
    MAX_TERM_WORDS,
    FoundDefinition,
    clean_definition,
    collapse,
    valid_term,
    word_set,
)
from .layout import MARKER, item_end, item_start, paragraph_end

__all__ = [
    "MAX_TERM_WORDS",
    "FoundDefinition",
    "find_definitions",
    "is_definitions_heading",
    "leading_points",
]

_VERBS = (
    r"(?:(?:shall|will)\s+mean|means|mean|(?:is|are|shall\s+be|will\s+be)\s+defined\s+"
    r"(?:as|to\s+mean)|(?:shall\s+|will\s+)?refers?\s*,?\s*(?:collectively\s*,\s*)?to"
    r"|(?P<include>(?:shall|will)\s+include|includes|include)|indicates?|denotes?"
    r"|(?:has|have|shall\s+have|will\s+have)(?=\s+the\s+(?:same\s+)?meanings?\b)"
    # '“Staff” is used to refer to all employees', 'the word "including" is used to mean'
    r"|(?:is|are)\s+used\s+(?:here(?:in)?\s+)?to\s+(?:mean|refer\s+to|denote|designate))"
)
_MEANS = re.compile(
    r"(?P<lead>\b(?i:the\s+)?(?i:terms?|expressions?|words?|phrases?)\s+)?"
    + QTERM
    # aliases stay in the paragraph: '... as "Not a Submission."' ends one, '"Submission"
    # means' opens the next
    # (whitespace is taken whole, "\s*+": a run of spaces left where markup was read as
    # spaces splits no two ways between the quantifiers around a comma)
    + r"(?P<aliases>(?:(?![ \t]*\n[ \t]*\n)\s*+,?\s*+(?:(?:or|and|and/or)\s+)?"
    + QTERM_ANON
    # '"Massive Multiauthor Collaboration Site" (or "MMC Site") means'
    + r"|\s*+\((?:or|also|the|hereinafter)?\s*"
    + QTERM_ANON
    # 'The term "Uniform Resource Locator" (URL) refers to': its acronym, unquoted
    + r"\s*\)|\s*+\((?=[A-Z][A-Za-z]*[A-Z])[A-Za-z0-9]{2,10}\)"
    # '"Processing" (including its various forms) means': a remark in lower case
    + r"|\s*+\((?=[a-z])[^()\"“”‘’\n]{1,60}\))*)"
    # a short qualifier: "‘consent’ of the data subject means", "“Affiliate”, as used herein,"
    + r"(?:(?:\s*+,)?\s++(?:as\s+used|when\s+used|used|contained|included|of|in|for)\b"
    + r"[^\"'‘’“”,;:.()\n]{0,60}?,?"
    # legislation's qualifier between commas, wrapped over lines: "*Judge*, in relation to
    # the performance of a function under this Act in a State, means"
    + r"|\s*,\s+in\s+(?:relation|respect)\s+(?:to|of)\s[^\"'‘’“”,;:.()]{1,160}?,"
    # a clause set off by commas: '"Including", and its variants, means', '*Quorum*, where
    # a vote requires one, means' (not before "shall have the meaning given ...": a pointer)
    + r"|\s*,\s+(?:and|or|where|wherever|when|whenever|unless|except|including|together"
    + r"|with)\s[^\"'‘’“”,;:.()\n]{1,160}?,(?=\s+(?:(?:shall|will)\s+)?means?\b)"
    # 'A "Transparent" copy of the Document means'
    + r"|\s+(?:copy|copies|version|form)(?:\s+of\s+(?:the\s+)?\w+)?"
    # "“Document”, below, refers to", "To “modify” a work means"
    + r"|(?:\s*+,)?\s++(?:below|above|herein|hereunder)\s*,?"
    + r"|\s+(?:a|an|the|such)(?:\s+[a-z]+){1,7}?)?"
    # "“copyleft”, which means that ..."
    + r"(?:\s*+,)?\s++(?:which\s+(?=means?\b))?(?:also\s+)?(?P<verb>"
    + _VERBS
    + r")\b[ \t]*[:,—–]?"
)
# In a definitions section: 'An "Account" represents ...', '“Organizations” are ...'.
# a value with its unit: a share or an amount ("is 80%", "is $10,000"), a template's blank
# with its unit; not a bare count ('The "Extension data" is 0 bytes unless ...')
# ('The “Discount Rate” is [100 minus the discount]%')
_AMOUNT = r"\s+(?:[$€£][ \t]?[\d\[]|\d[\d.,]*[ \t]?%|\[[^\]\n]{1,60}\][ \t]?%)"
# A second clause of the sentence defines too: "The **licensor** is ..., and the **software**
# is ..."; "A **product** can be a good or service" says what it is as "is" does.
_COPULA = re.compile(
    r"(?:^[ \t]*|(?<=[.;:])[ \t]+|(?<=,)[ \t]+and[ \t]+(?=(?:an?|the)[ \t]))(?:"
    + MARKER.pattern
    + r"[ \t]+)?(?:(?:An?|The|an?|the)[ \t]+)?"
    + QTERM
    + r"[ \t]+(?=(?P<verb>(?:is|are|can\s+be)(?=\s+(?:a|an|the|any|all|each|every|one|certain"
    r"|shared|either)\b|\s+[A-Z]|" + _AMOUNT + r")|represents(?!\s+and\s+warrants)"
    r"|describes)\b)",
    re.MULTILINE,
)
# Anywhere, with real quotes: 'A “contributor” is a copyright holder ...', 'A contributor's
# “essential patent claims” are all patent claims ...', '“Additional permissions” are terms
# that ...'.
_COPULA_ANYWHERE = re.compile(
    r"(?:^[ \t]*|(?<=[.;:])[ \t]+|(?<=,)[ \t]+(?=an?\s|the\s))"
    # 'An HTTP “client” is a program ...': a proper name or acronym may qualify the term
    r"(?:(?:An?|The|an?|the)[ \t]+)?(?:[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*[ \t]+)?"
    r"(?:[A-Za-z]+['’]s[ \t]+)?"
    + QTERM
    + r"[ \t]+(?=(?P<verb>is(?=\s+(?:a|an|any|either|one)\b|"
    + _AMOUNT
    + r")"
    # '“Project Teams” are groups of people ...': a plural noun of what they are made of
    r"|are(?=\s+(?:all|any|those)\b|\s+[a-z]+\s+(?:that|which|who)\b|\s+[a-z]{3,}s\s+of\b))\b)",
    re.MULTILINE,
)
# "Each licensee is addressed as “you”", 'A copy that is not "Transparent" is called "Opaque"'
_CALLED = re.compile(
    # a footnote's number: "3 An ..."; a sentence ending in a quote: 'a “Disclosing Party.” A'
    r"(?:^[ \t]*(?:\d{1,3}[ \t]+)?|(?:(?<=[.!?;:])|(?<=[.!?][\"”’]))[ \t]+)"
    # "Each licensee", "Header fields that describe the payload" (not "This", "It")
    r"(?P<subject>(?:Each|Any|The|An?)\s(?:[^.;:\n]|\n(?![ \t]*\n)){1,300}?"
    r"|(?!(?:This|These|That|Those|It|They|Such|There|Here)\b)[A-Z][a-z]+[ \t]"
    r"(?:[^.;:\n]|\n(?![ \t]*\n)){1,300}?)\s+(?:is|are)\s+"
    # "is hereafter referred to as a “Disclosing Party.”"
    r"(?:here(?:in)?after\s+)?(?:(?:addressed|referred\s+to|known)\s+as|called)\s+"
    r"(?:an?\s+|the\s+|its\s+|their\s+)?" + QTERM,
    re.MULTILINE,
)
# '"Authorized User": an employee of Customer ...', '"Database" - Means a collection ...': a
# quoted term opening a line or an item, then a colon or a spaced dash (real quotes:
# "**Security**: we encrypt ..." is a bold lead-in, not a term)
_QUOTED_COLON = re.compile(
    r"^[ \t]*(?:"
    + MARKER.pattern
    + r"[ \t]+)?"
    + QTERM
    + r"(?:[ \t]*(?P<colon>:)|[ \t]+[-–—]|[ \t]*[–—])"
    r"[ \t]+(?:(?:[Aa]s\s+an?\s+\w+,\s+)?[Mm]eans\b[ \t]*:?[ \t]*)?(?=\S)",
    re.MULTILINE,
)
# A sentence whose verb says it defines: "Availability is defined as the percentage ...",
# "A significant change is one that is likely to ...", "Eligible costs are those which ..."
_SELF_DEFINING = re.compile(
    r"(?:^[ \t]*|(?<=[.!?])[ \t]+)(?:(?:An?|The)[ \t]+)?"
    r"(?P<term>[A-Za-z][\w\-]*(?:[ \t]+[A-Za-z][\w\-]*){0,3}?)[ \t]+"
    r"(?:(?:is|are)[ \t]+defined[ \t]+as[ \t]+"
    r"|(?:is|are)[ \t]+(?=(?:one|ones|those)[ \t]+(?:that|which|who|whose|where|in[ \t]+which)\b))",
    re.MULTILINE,
)
_SELF_DEFINING_CUE = re.compile(
    r"\b(?:is|are)[ \t]+(?:defined[ \t]+as|(?:one|ones|those)[ \t]+(?:that|which|who|whose|where"
    r"|in[ \t]+which))\b"
)
# the classic form, a kind and what sets it apart: "A line is a series of characters that
# is delimited with CRLF" (an indefinite subject opening a sentence; "the line is ..." speaks
# of one line)
_GENUS = re.compile(
    # "... will formalize this: a Releaser is a person who ...": after a colon in lower case
    r"(?:(?:^[ \t]*|(?<=[.!?])[ \t]+)An?[ \t]+|(?<=:)[ \t]+an?[ \t]+(?=[A-Z]))"
    r"(?P<term>[A-Za-z][\w\-]*(?:[ \t]+[A-Za-z][\w\-]*){0,2}?)[ \t]+is[ \t]+"
    r"(?=an?\s+(?:[\w\-]+\s+){0,6}?(?:that|which|who|whose|where|in\s+which)\b)",
    re.MULTILINE,
)
_GENUS_CUE = re.compile(r"\bis[ \t]+an?[ \t]")
# 'A member "in good standing" of a venue ... is any member ...': a quoted qualifier of the
# noun the sentence opens with, defined by what the noun is said to be, the noun repeated
_EMBEDDED = re.compile(
    r"(?:^[ \t]*(?:" + MARKER.pattern + r"[ \t]+)?|(?<=[.!?])[ \t]+)(?:An?|The|Each|Every)[ \t]+"
    r"(?P<noun>[a-z][\w\-]*)[ \t]+" + QTERM + r"[ \t]+(?:of|in|for|on|at)\s[^.;:\"“”]{1,200}?"
    r"\s(?:is|are)\s+(?=(?:any|every|each|a|an|one|the)\s+(?P=noun)\b)",
    re.MULTILINE,
)
_EMBEDDED_CUE = re.compile(r"[\"'’”][ \t]+(?:of|in|for|on|at)\s")
# what a sentence says of an example or a case, not of a kind it defines
_META_NOUNS = word_set(
    "example case instance way reason problem result approach option alternative solution"
    " difference exception consequence possibility issue concern challenge benefit advantage"
    " disadvantage feature goal aim purpose rule requirement"
)
# 'When we say "Services", we mean ...', 'When we say "Company", "we", or "us" in this
# document, we are referring to ...': the writer says what the quoted words stand for
_WE_SAY = re.compile(
    r"(?:^[ \t]*|(?<=[.!?:])[ \t]+)When[ \t]+(?:we|I)[ \t]+(?:say|use|write)[ \t]+"
    r"(?:the[ \t]+(?:terms?|words?|phrases?)[ \t]+)?"
    + QTERM
    + r"(?P<aliases>(?:\s*,?\s*(?:(?:or|and|and/or)\s+)?"
    + QTERM_ANON
    + r")*)(?:\s+[^\"“”‘’,.;:\n]{1,40}?)?\s*,\s+(?:we|I)\s+(?:(?:are|am)\s+referring\s+to"
    r"|refer\s+to|mean)\b[ \t]*:?[ \t]*",
    re.MULTILINE,
)
_WE_SAY_CUE = re.compile(r"\bWhen[ \t]+(?:we|I)[ \t]+(?:say|use|write)\b")
# the writer's and the reader's pronouns, which a document may list among a term's aliases
_PERSONAL_PRONOUNS = word_set("we us our ours i me my you your yours they them their")
# "Suspension means you will not be able to ...": one capitalised word opening a sentence
_WORD_MEANS = re.compile(
    r"(?:^[ \t]*(?:" + MARKER.pattern + r"[ \t]+)?|(?<=[.!?])[ \t]+)"
    r"(?P<term>[A-Z][a-z]{3,})[ \t]+means[ \t]+(?!to\b|that\b)",
    re.MULTILINE,
)
_WORD_MEANS_CUE = re.compile(r"\b[A-Z][a-z]{3,}[ \t]+means\b")
_QUOTED_COLON_CUE = re.compile(r"[\"'’”](?:[ \t]*:|[ \t]+-|[ \t]*[–—])[ \t]")
_MEMBER_VALUE = re.compile(r"[\"“{\[\d-]|(?:true|false|null)\b")
# "...; this is called “folding”": the clause before names the term
_THIS_CALLED = re.compile(
    r"(?P<stop>[;,:]|[.!?])[ \t]+[Tt]his\s+is\s+(?:(?:also|commonly|often|sometimes)\s+)?"
    r"(?:called|known\s+as|referred\s+to\s+as|termed)\s+(?:an?\s+|the\s+)?"
    + QTERM
    # 'This is called a "chosen plaintext" attack': the quoted words qualify a noun
    + r"(?=\s*(?:[.;:,)]|$))"
)
# 'Any change made to a release branch is a *technical decision* of the project.'
_PREDICATE = re.compile(
    r"(?:^[ \t]*|(?<=[.!?])[ \t]+)(?P<subject>(?:Any|Each|Every)\s(?!of\b)"
    r"(?:[^.;:\"“”‘’\n]|\n(?![ \t]*\n)){3,200}?)\s+(?:is|are)\s+(?:an?\s+|the\s+)?"
    + QTERM
    + r"(?:\s+(?:of|for|under)\s+(?:the|this|these)\s+[\w-]+)?(?=[.!?;]|\s*$)",
    re.MULTILINE,
)
_PREDICATE_CUE = re.compile(r"(?:is|are)\s+(?:an?\s+|the\s+)?[\"“‘']")
# "... get on with the work. We call this [lazy consensus](url).": the sentence before
_WE_CALL = re.compile(
    r"(?P<stop>[.!?])[ \t]+(?:We|we)\s+(?:call|term|name)\s+(?:this|that)\s+(?:an?\s+|the\s+)?"
    r"(?:\[(?P<linked>[A-Za-z][^\]\n]{1,60})\]\([^)\n]*\)|"
    + QTERM
    + r"|(?P<bare>[A-Za-z][\w-]*(?:[ \t]+[A-Za-z][\w-]*){0,3}))[\"”’]?(?=[.!?])"
)
_NOT_NAMES = word_set("one ones done it them so good enough off over up out")
_WE_CALL_CUE = re.compile(r"[Ww]e\s+(?:call|term|name)\s+(?:this|that)\b")
# "To _Close the Connection_, an endpoint closes the transport": what doing it is (a
# subject and its verb follow the comma; "To “opt out”, click the link" instructs)
_TO_DO = re.compile(
    r"(?:^[ \t]*|(?<=[.!?])[ \t]+)To[ \t]+" + QTERM + r"[ \t]*,\s+"
    r"(?=(?:an?|the|each|every)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+[a-z]{2,}s\b)",
    re.MULTILINE,
)
_TO_DO_CUE = re.compile(r"\bTo[ \t]+[\"'‘“]")
# "is “eligible for relicensing” if ...", "An interface displays “Appropriate Legal Notices” to
# the extent that it includes ..." (a verb in the third person before the quoted term)
_CONDITIONAL = re.compile(
    r"\b(?:is|are|[a-z]{3,}[^s\W]s)\s+" + QTERM + r"\s+(?=if\b|to\s+the\s+extent\s+that\b)"
)
# the requirement keywords of RFC 2119 / BCP 14
_BCP14 = re.compile(r"(?:MUST|SHALL|SHOULD|MAY|REQUIRED|RECOMMENDED|OPTIONAL)(?:\s+NOT)?")
# a quoted label after a participle names what the subject is labelled, not a defined term
_LABELLED = re.compile(r"\b(?:labell?ed|marked|titled|entitled|reading)\s+\S{1,2}$")
# "indicates that ..." / "denotes whether ...": what a value signals, not what a term means
_SIGNALS = re.compile(r"indicates?|denotes?")
_CLAUSE = re.compile(r"\s*(?:that|what|whether|which|how|if|when)\b")
_CALLED_CUE = re.compile(
    r"\b(?:is|are)\s+(?:here(?:in)?after\s+)?(?:(?:addressed|referred\s+to|known)\s+as|called)\b"
)
_CONDITIONAL_CUE = re.compile(r"[\"'’”]\s+(?:if|to\s+the\s+extent\s+that)\b")
_COPULA_CUE = re.compile(r"[\"'’”][ \t]+(?:is|are|can[ \t]+be|represents|describes)\b")
# What may precede the term that opens a numbered item: "1. ‘", "(1) ADMINISTRATOR.—The
# term '", "(64) SECRETARY.—Unless otherwise specified, the term '", "1. An “".
_ITEM_LEAD = re.compile(
    r"[ \t]*>?[ \t]*(?:\S{1,12}[ \t]+)?(?:[A-Z][A-Z0-9 ,\-’'()]*[.:]?[—–-]+[ \t]*)?"
    r"(?i:unless\s+otherwise\s+specified,\s*)?(?i:(?:the|an?)\s+)?(?i:terms?\s+)?"
    r"[\"'‘“`*\s]*"
)
# the next item of a list flattened into one line (text from PDFs): "... City of Winnipeg.
# f) “Confidant” means", "... other than City. 2. Access/Use of Confidential Information:"
_INLINE_ITEM = re.compile(
    r"[.;]\s+(?:\(?[a-z]\)|\(?[ivx]{1,4}\)|\d{1,2}\.(?:\d{1,2}\.?)*)[ \t]+"
    # a quoted term (the next definition) or a heading ("3. Restrictions:"), not a sub-item
    r"(?=[\"“‘]|[A-Z][^.:()\n]{0,80}[.:]\s)"
)
_PART_LABEL = re.compile(
    r"(?i)^\s*(?:#+\s*)?(?:appendix|annex|schedule|exhibit|part|chapter)\s+[\w.]{1,6}\s*$"
)
_RULE = re.compile(r"[ \t]*([=\-~*#^+_])\1{2,}[ \t]*$")
_UNQUOTED = re.compile(
    r"^(?P<prefix>" + MARKER.pattern + r"[ \t]+)"
    r"(?P<term>[A-Za-z][\w\-/&]*(?:['’]s)?(?:[ \t]+\w[\w\-/&]*(?:['’]s)?){0,5}?)"
    r"[ \t]+(?P<verb>" + _VERBS + r")\b"
    r"[ \t]*[:,—–]?",
    re.MULTILINE,
)
# "In this case, ...", "In this way, ...": a circumstance, not the document's scope
_CIRCUMSTANCE = (
    r"(?:case|cases|way|event|instance|situation|example|context|manner|respect|regard|scenario"
    r"|mode|step|state|phase)\b"
)
# An unquoted term after words that announce one: "The term authorization refers to ...",
# "As used in this Agreement, Affiliate means ...": the lead stands for the quotes.
_ANNOUNCED = re.compile(
    r"(?:\b(?:[Tt]he|[Aa])\s+(?:term|phrase|expression|word)\s+"
    r"|(?:^[ \t]*|(?<=[.;:])[ \t]+)(?:[Aa]s\s+used\s+(?:in|herein|hereunder|throughout)\b"
    r"[^,;:.\n]{0,60}|[Ii]n\s+this\s+(?!" + _CIRCUMSTANCE + r")[\w-]+(?:\s+[\w-]+)?),[ \t]+"
    r"(?:(?:the|an?)[ \t]+)?"
    # "By “personal data” we mean ..."
    r"|(?:^[ \t]*|(?<=[.;:])[ \t]+)By[ \t]+)"
    r"[\"“‘']?(?P<term>[A-Za-z][\w\-/&]*(?:[ \t]+[A-Za-z][\w\-/&]*){0,4}?)[\"”’']?"
    # not "includes" (it widens a term defined elsewhere) nor "has the meaning" (a pointer)
    r"[ \t]+(?P<verb>(?:(?:shall|will)\s+)?(?:means?|refers?\s+to|denotes?)|(?:is|are)\s+"
    r"(?:defined\s+as|used\s+to\s+(?:mean|refer\s+to|denote))|to\s+(?:mean|refer\s+to|denote)"
    r"|(?:we|I)\s+mean)"
    r"\b[ \t]*[:,—–]?",
    re.MULTILINE,
)
_ANNOUNCED_CUE = re.compile(
    r"\b(?:term|phrase|expression|word)\b|\b[Aa]s\s+used\b|\b[Ii]n\s+this\b|\bBy\s"
)
#: What follows "has": "the meaning given in Section 3.2", "the same meaning as in the DPA".
POINTER = re.compile(r"(?i)^(?:the\s+)?(?:same\s+)?meanings?\b")
# "the Participant Software (meaning the Contributor Version ...)"
_MEANING = re.compile(r"\b(?P<term>[A-Z][\w-]*(?:[ \t]+[A-Z][\w-]*){0,4})\s+\(meaning\s+")
# a sentence ends before a capital, a quote, or an inline clause number ("... . 2 Recipient"),
# not after a dotted abbreviation ("the Commissioner of U.S. Customs")
_SENTENCE_END = re.compile(
    r"(?<!\.[A-Z])[.!?][\"”’)]*(?=\s+[A-Z\"“‘(]|\s+\d{1,2}(?:\.\d{1,2})*\.?\s+[A-Z]|\s*$)"
)
_SUBORDINATORS = word_set(
    "although though while whilst since because if unless when whenever where whereas once as"
    " after before until"
)
_NOT_A_NAME = re.compile(r"(?:here|there)\w+|following|terms?|words?|also|both|either|each")
_PRONOUNS = word_set("this that it which such there these those he she they what who each any all")
_VERB_WORDS = word_set("is are was were be shall will must may can should would does do did not")
# words that open a clause, not a term: "In communications ... means", "Whose manner and means"
_CLAUSE_LEADS = word_set("in on at for to from with by of as if when where whose whether")
_DEF_HEADING = re.compile(
    r"^(?:(?:certain|general|key|other|common|relevant|important)\s+)?"
    r"(?:(?:applicability|scope|purpose)\s+and\s+definitions"
    r"|definitions?|glossary(?:\s+of\s+terms)?|(?:defined\s+)?terms|interpretation|terminology"
    r"|abbreviations|acronyms|meaning\s+of\s+terms|terms\s+used|concepts|vocabulary|nomenclature)"
    # further items: "Terms and definitions", "Terms, definitions and abbreviated terms",
    # "Terms, Definitions and Examples", "Definitions and rules of interpretation"
    r"(?:\s*(?:,\s*and\b|,|\band\b|&|;)\s*(?:rules\s+of\s+)?"
    r"(?:interpretation|definitions?|abbreviations|abbreviated\s+terms|acronyms|construction"
    r"|symbols|examples|notation)){0,3}$"
)
_ACRONYMS = re.compile(r"acronym|abbreviation")
# a line that announces definitions below it: "The following terms have the following
# meanings:", "In this Agreement, the following definitions apply:", "In this Act—"
_LIST_LEAD = re.compile(
    r"(?im)(?:\bthe\s+following\s+(?:terms?|words?|expressions?|definitions?)\b[^\n]{0,120}"
    r"|\b(?:terms?|words?|expressions?)\s+(?:used\s+)?[^\n:]{0,60}?(?:have|shall\s+have|bear)"
    r"\s+the\s+(?:following\s+)?meanings?\b[^\n]{0,80}"
    r"|^[ \t]*In\s+this\s+(?:[\w-]+[ \t]*){1,3}(?:,\s*unless\s+the\s+context\s+otherwise\s+"
    r"requires)?)[ \t]*[:—–][ \t]*\n"
)
_PARAGRAPH = re.compile(r"\s*(?:.+\n?)+")
# a paragraph of such a list: an item, or a term then "means" or a colon
_LIST_ENTRY = re.compile(
    r"\s*(?:" + MARKER.pattern + r"[ \t]|[\"“‘*]|[A-Za-z][\w\-/ ]{0,60}?(?:[ \t]+(?:means|refers"
    r"\s+to|includes)\b|:[ \t]))"
)
_HEADING_NUMBER = re.compile(
    r"^(?:#+\s*)?(?:(?:section|sec|article|art|chapter|ch|part|clause|schedule|annex|appendix"
    r"|title|rule|§+)\.?\s*)?(?:(?:\d+[a-z]?|[a-z])(?:[.\-]\d+)+|\d+[a-z]?|[ivxlc]+|[a-z])?"
    r"(?=[\s.:)\-–—]|$)"
    r"[\s.:)\-–—]*"
)


def is_definitions_heading(heading: str) -> bool:
    """Whether a heading names a definitions section, ignoring numbering, markup and case."""
    text = " ".join(unmark(heading).plain.casefold().split())
    text = _HEADING_NUMBER.sub("", text, count=1).strip(" .:;-–—")
    return bool(_DEF_HEADING.match(text))


def find_definitions(text: str, in_definitions_section: bool = False) -> list[FoundDefinition]:
    """All definitions in ``text``, in text order, without duplicates; a list announced as
    definitions ("In this policy:", "The following terms have the following meanings:")
    is read as a definitions section is."""
    in_definitions_section = in_definitions_section or _titled_definitions(text)
    found = _definitions(text, in_definitions_section)
    if not in_definitions_section:
        for start, end in _announced_lists(text):
            found += [
                replace(item, start=item.start + start, end=item.end + start)
                for item in _definitions(text[start:end], True)
            ]
    return _dedupe(found)


def _announced_lists(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each list a lead-in announces as definitions: its items, or its
    paragraphs that open with a term, up to a heading or the first other paragraph."""
    for lead in _LIST_LEAD.finditer(text):
        end = start = lead.end()
        for paragraph in _PARAGRAPH.finditer(text, start):
            body = paragraph.group()
            if body.lstrip().startswith("#") or not _LIST_ENTRY.match(body):
                break
            end = paragraph.end()
        if end > start:
            yield start, end


def _definitions(text: str, in_definitions_section: bool) -> list[FoundDefinition]:
    marked = unmark(text)
    means = list(_means_definitions(marked, in_definitions_section))
    spans = [(head[0], found.end) for head, found in means]
    found = [item for _, item in means]
    found += _called_definitions(marked)
    found += _predicate_definitions(marked)
    found += _this_called_definitions(marked)
    found += [] if in_definitions_section else _quoted_colon_definitions(marked)
    found += _procedure_definitions(marked)
    found += _we_say_definitions(marked)
    found += _conditional_definitions(marked)
    found += _meaning_definitions(marked)
    found += _embedded_definitions(marked)
    # '"Massive Multiauthor Collaboration Site" (or "MMC Site") means': an alias, not a
    # parenthetical naming the text before it
    found += [
        item
        for item in parenthetical_definitions(marked)
        if not any(start <= item.start < end for (start, end), _ in means)
    ]
    extra = list(table_definitions(marked, in_definitions_section))
    extra += described_definitions(marked)
    extra += spaced_colon_definitions(marked)
    extra += _word_means_definitions(marked)
    headed = _section_definitions(marked, text) if in_definitions_section else []
    # "#### Passphrase" / "A passphrase is ...": the heading's term, defined once
    heads = [(item.start, item.end) for item in headed if item.style == "glossary"]
    extra += [item for item in opening_definitions(marked) if not _overlaps(item, heads)]
    extra += footnote_definitions(marked)
    extra += purpose_definitions(marked)
    extra += headed
    found += [item for item in extra if not _overlaps(item, spans)]
    # the more specific readings of the same sentence win ("opening", "means")
    taken = [(item.start, item.end) for item in found]
    found += [item for item in _self_defining(marked) if not _overlaps(item, taken)]
    # a row keeps the "means" its definition holds ('Relevant Provisions | Means, in relation
    # to COBS, "relevant provisions" means ...')
    found += column_definitions(marked)
    # '"MUST" This word, or the terms "REQUIRED" or "SHALL", mean that ...': the quoted
    # synonyms' "mean" does not hide the term before them
    found += pointed_definitions(marked) if in_definitions_section else []
    # a run of entries written alike ("**Term**: text" three times over) is a glossary,
    # whatever its words; what the readers above found in an entry stays theirs
    # (a parenthesis inside an entry's text, '("upphovsrätt")', does not take its term)
    taken = [(item.start, item.end) for item in found]
    found += [
        item
        for item in run_definitions(text, marked)
        if not any(start <= item.start < end for start, end in taken)
    ]
    return found


def _section_definitions(marked: Unmarked, text: str) -> list[FoundDefinition]:
    """The layouts read only in a definitions section: glossary lines, bare table rows, a
    sub-heading naming a term, paragraphs opening with what a term is (not the one under a
    term's heading: "#### Passphrase" / "A passphrase is ..." defines the heading's term)."""
    heading = text.split("\n", 1)[0]
    glossary = is_definitions_heading(heading) and not _ACRONYMS.search(heading.casefold())
    found = list(glossary_definitions(marked)) + list(bare_row_definitions(marked, glossary))
    found += entry_definitions(marked)
    found += indented_definitions(marked)
    headed = (
        [] if is_definitions_heading(text.split("\n", 1)[0]) else list(heading_definitions(marked))
    )
    found += headed
    spans = [(item.start, item.end) for item in headed]
    return found + [item for item in prose_definitions(marked) if not _overlaps(item, spans)]


def _titled_definitions(text: str) -> bool:
    """Whether one of the first lines is a definitions title ("APPENDIX A" then "TERMS AND
    DEFINITIONS" in a PDF whose second line the outline did not take as a heading); a
    title's over- and underlines ("========", reStructuredText's) are no lines."""
    lines = [line for line in text[:400].splitlines() if line.strip() and not _RULE.match(line)]
    lines = lines[:2]
    if lines and _PART_LABEL.match(lines[0]):
        lines = lines[1:]
    return bool(lines) and len(lines[0]) < 60 and is_definitions_heading(lines[0])


def _overlaps(item: FoundDefinition, spans: list[tuple[int, int]]) -> bool:
    return any(start < item.end and item.start < end for start, end in spans)


def _dedupe(found: list[FoundDefinition]) -> list[FoundDefinition]:
    seen: set[tuple[str, int]] = set()
    result = []
    for item in sorted(found, key=lambda f: (f.start, f.end)):
        key = (normalize_term(item.term), item.start)
        if key not in seen:
            seen.add(key)
            result.append(item)
    return result


# --- "X" means Y -------------------------------------------------------------------------


def _means_definitions(
    marked: Unmarked, in_section: bool
) -> Iterator[tuple[tuple[int, int], FoundDefinition]]:
    """Means-style definitions, each with the span from its first term to its definition."""
    text = marked.quoted
    matches = _quoted_means(text, marked.emphasised)
    matches += _copula_means(text, matches, _COPULA_ANYWHERE, marked.emphasised)
    matches += _announced_means(text, matches)
    if in_section:
        matches += _copula_means(text, matches, _COPULA)
        quoted = [(start, _definition_end(text, terms[0][1], end)) for start, end, terms in matches]
        for match in _UNQUOTED.finditer(text):
            overlap = any(a < match.end() and match.start() < b for a, b in quoted)
            if _valid_unquoted(match.group("term")) and not overlap:
                matches.append((match.start("term"), match.end(), _unquoted_terms(match)))
    matches.sort()
    for index, (start, def_start, terms) in enumerate(matches):
        limit = _next_start(text, matches, index)
        end = min(_definition_end(text, terms[0][1], def_start), limit)
        inline = _INLINE_ITEM.search(text, def_start, end + 1)
        end = inline.start() + 1 if inline else end
        definition, end = clean_definition(marked, def_start, end)
        pointer = bool(POINTER.match(definition))
        # an empty definition is kept: "16. ‘main establishment’ means:" whose points were
        # split off into sections of their own still defines the term
        for raw, raw_start in terms:
            term, term_start = term_at(raw, raw_start)
            article = re.match(r"The\s+(?=[A-Z])", term)  # “The User,” “You,” and “Your” refer to
            if article:
                term, term_start = term[article.end() :], term_start + article.end()
            if valid_term(term):
                style = "pointer" if pointer else "means"
                yield (start, def_start), FoundDefinition(term, definition, term_start, end, style)


def _next_start(
    text: str, matches: list[tuple[int, int, list[tuple[str, int]]]], index: int
) -> int:
    """Where the next definition starts, which ends this one; a definition inside this
    one ('either (1) a “consumer product”, which means ...') does not end it."""
    for start, def_start, _ in matches[index + 1 :]:
        if not re.search(r",\s*which\s", text[start:def_start]):
            return start
    return len(text)


def _called_definitions(marked: Unmarked) -> list[FoundDefinition]:
    """'Each licensee is addressed as “you”': the subject defines the term after "as"; a
    condition after the term is part of the definition ('An HTTP-to-HTTP proxy is called a
    "transforming proxy" if it is designed to modify messages')."""
    found = []
    for match in _windowed(_CALLED, _CALLED_CUE, marked.quoted, 320):
        term, start = term_at(match.group("term"), match.start("term"))
        subject = collapse(marked.plain[match.start("subject") : match.end("subject")])
        subject = _inside_open_parenthesis(subject).rstrip(" ,")
        if re.search(r"\b(?:which|that|who)$", subject):
            continue  # "in small pieces, which are called “chunks”": no subject of its own
        end = match.end()
        if re.match(r"\s+if\b", marked.quoted[end:]):
            sentence = _SENTENCE_END.search(marked.quoted, end)
            condition, end = clean_definition(
                marked, end, sentence.start() if sentence else len(marked.quoted)
            )
            subject = f"{subject} {condition}"
        if valid_term(term):
            found.append(FoundDefinition(term, subject, start, end, "means"))
    return found


def _predicate_definitions(marked: Unmarked) -> list[FoundDefinition]:
    """'Any change made to a release branch is a *technical decision* of the project.': a
    quoted or emphasised term said of every subject of a kind, the sentence ending there,
    is defined by that subject."""
    found = []
    for match in _windowed(_PREDICATE, _PREDICATE_CUE, marked.quoted, 240):
        term, start = term_at(match.group("term"), match.start("term"))
        subject = collapse(marked.plain[match.start("subject") : match.end("subject")])
        if valid_term(term) and len(subject.split()) >= 3:
            found.append(FoundDefinition(term, subject, start, match.end(), "means"))
    return found


def _this_called_definitions(marked: Unmarked) -> list[FoundDefinition]:
    """'the field body can be split into lines; this is called "folding"': the clause (or
    sentence) before "this" defines the term; so does the sentence before "We call this
    lazy consensus." (the term plain, emphasised, quoted or a link's words)."""
    text = marked.quoted
    found = []
    for match in [*_THIS_CALLED.finditer(text), *_windowed(_WE_CALL, _WE_CALL_CUE, text, 4)]:
        paragraph = text.rfind("\n\n", 0, match.start()) + 1
        ends = list(_SENTENCE_END.finditer(text, paragraph, match.start("stop")))
        start = ends[-1].end() if ends else paragraph
        # 'X are referred to as "Y". This is called "Z".': "this" is the quoted term's
        quoted = re.search(r"[\"“”‘’]", text[start : match.start("stop")])
        definition, _ = clean_definition(marked, start, match.start("stop"))
        named = next(g for g in ("term", "linked", "bare") if match.groupdict().get(g))
        term, term_start = term_at(match.group(named), match.start(named))
        # "We call this one done.": a bare term must be a name
        bare = named == "bare" and (
            not _valid_unquoted(term) or term.split()[0].casefold() in _NOT_NAMES
        )
        if valid_term(term) and len(definition.split()) >= 3 and not quoted and not bare:
            found.append(FoundDefinition(term, definition, term_start, match.end(), "means"))
    return found


def _quoted_colon_definitions(marked: Unmarked) -> list[FoundDefinition]:
    """'"Authorized User": an employee of Customer authorized to use the Service.': the
    rest of the line's item or paragraph defines the quoted term."""
    text = marked.quoted
    found = []
    for match in _windowed(_QUOTED_COLON, _QUOTED_COLON_CUE, text, 160, 30):
        line_end = text.find("\n", match.end())
        line = text[match.end() : line_end if line_end >= 0 else len(text)].rstrip()
        # '"name": "value",' / '"size": 10': a JSON or YAML member, not a glossary line
        # (a dash is no member's separator: its wrapped line may end with a comma)
        closed = match.group("colon") and line.endswith((",", "{", "["))
        member = _MEMBER_VALUE.match(line) or closed
        if match.start("term") - 1 in marked.emphasised or member or len(line.split()) < 3:
            continue
        end = _definition_end(text, match.start("term"), match.end())
        definition, end = clean_definition(marked, match.end(), end)
        term, term_start = term_at(match.group("term"), match.start("term"))
        if valid_term(term) and definition:
            found.append(FoundDefinition(term, definition, term_start, end, "glossary"))
    return found


def _we_say_definitions(marked: Unmarked) -> list[FoundDefinition]:
    """'When we say "Services", we mean our websites ...': the sentence's rest defines the
    quoted term and its aliases, not the pronouns among them ("we", "our", "us")."""
    text = marked.quoted
    found = []
    for match in _windowed(_WE_SAY, _WE_SAY_CUE, text, 8, 300):
        definition, stop = _rest_of_sentence(marked, text, match.end())
        terms = [(match.group("term"), match.start("term"))]
        for alias in QUOTED_TERM.finditer(match.group("aliases")):
            terms.append((alias.group("term"), match.start("aliases") + alias.start("term")))
        for raw, raw_start in terms:
            term, term_start = term_at(raw, raw_start)
            pronoun = term.casefold() in _PERSONAL_PRONOUNS and term.islower()
            if valid_term(term) and definition and not pronoun:
                found.append(FoundDefinition(term, definition, term_start, stop, "means"))
    return found


def _word_means_definitions(marked: Unmarked) -> list[FoundDefinition]:
    """'Suspension means you and any other users will not be able to access the account.':
    a single capitalised noun opening a sentence, defined by the rest of the sentence (not
    "This means", "Although means ...", nor "X means to ..." / "X means that ...")."""
    text = marked.plain
    found = []
    for match in _windowed(_WORD_MEANS, _WORD_MEANS_CUE, text, 40, 8):
        term = match.group("term")
        word = term.casefold()
        if word in _PRONOUNS or word in _SUBORDINATORS or _NOT_A_NAME.fullmatch(word):
            continue
        if not _sentence_opens(text, match.start("term")):
            continue
        definition, stop = _rest_of_sentence(marked, text, match.end())
        if valid_term(term) and len(definition.split()) >= 3:
            found.append(FoundDefinition(term, definition, match.start("term"), stop, "means"))
    return found


def _self_defining(marked: Unmarked) -> list[FoundDefinition]:
    """'Availability is defined as the percentage of time ...', 'A significant change is
    one that ...': the sentence's own verb says that it defines its subject."""
    text = marked.plain
    found = []
    genus = _windowed(_GENUS, _GENUS_CUE, text, 60)
    for match in [*_windowed(_SELF_DEFINING, _SELF_DEFINING_CUE, text, 60), *genus]:
        term = match.group("term")
        lead = term.split()[0].casefold()
        if not _valid_unquoted(term) or _NOT_A_NAME.fullmatch(lead) or lead in _SUBORDINATORS:
            continue
        if term.split()[-1].casefold() in _META_NOUNS:
            continue  # "A good example is a server that ..."
        if not _sentence_opens(text, match.start()):
            continue  # a wrapped line: "... the entire field-value for that\n header field is"
        definition, stop = _rest_of_sentence(marked, text, match.end())
        # "is defined as follows:", "is defined as in Section 2": the definition is elsewhere;
        # "The request method is defined as being cacheable": a property, not what it is
        elsewhere = re.match(r"(?:follows|below|above|in|by|under|per|being)\b", definition)
        if valid_term(term) and len(definition.split()) >= 3 and not elsewhere:
            found.append(FoundDefinition(term, definition, match.start("term"), stop, "means"))
    return found


def _embedded_definitions(marked: Unmarked) -> list[FoundDefinition]:
    """'A member "in good standing" of a venue ... is any member whose ...': the quoted
    words qualifying the sentence's subject, defined by the rest of the sentence."""
    text = marked.quoted
    found = []
    for match in _windowed(_EMBEDDED, _EMBEDDED_CUE, text, 240, 260):
        definition, stop = _rest_of_sentence(marked, text, match.end())
        term, term_start = term_at(match.group("term"), match.start("term"))
        if valid_term(term) and len(definition.split()) >= 3:
            found.append(FoundDefinition(term, definition, term_start, stop, "means"))
    return found


def _rest_of_sentence(marked: Unmarked, text: str, start: int) -> tuple[str, int]:
    """The cleaned definition from ``start`` to its sentence's end (else its paragraph's),
    and where it stops; ``text`` is ``marked``'s plain or quoted form."""
    sentence = _SENTENCE_END.search(text, start)
    stop = sentence.start() if sentence else paragraph_end(text, start)
    return clean_definition(marked, start, stop)


def _sentence_opens(text: str, position: int) -> bool:
    """Whether a sentence opens at ``position``: the text's start, after a blank line, or
    after a sentence's (or heading's, or item's) end; not a wrapped line's start."""
    before = text[max(0, position - 200) : position].rstrip(" \t")
    if not before or before.endswith("\n\n"):
        return True
    last = before.rstrip()
    return (
        not last
        or last[-1] in ".!?:"
        or before.endswith("\n")
        and bool(MARKER.match(text, position))
    )


def _procedure_definitions(marked: Unmarked) -> list[FoundDefinition]:
    """'To _Close the WebSocket Connection_, an endpoint closes the underlying TCP
    connection.': the sentence after the comma says what doing it is."""
    text = marked.quoted
    found = []
    for match in _windowed(_TO_DO, _TO_DO_CUE, text, 8):
        definition, stop = _rest_of_sentence(marked, text, match.end())
        term, term_start = term_at(match.group("term"), match.start("term"))
        if valid_term(term) and definition:
            found.append(FoundDefinition(term, definition, term_start, stop, "means"))
    return found


def _meaning_definitions(marked: Unmarked) -> list[FoundDefinition]:
    """'the Participant Software (meaning the Contributor Version where ...)': the
    capitalised name before the parenthesis, defined by what it says after "meaning"."""
    found = []
    for match in _MEANING.finditer(marked.quoted):
        close = marked.quoted.find(")", match.end())
        if close < 0 or "(" in marked.quoted[match.end() : close]:
            continue
        term = collapse(match.group("term"))
        definition, stop = clean_definition(marked, match.end(), close)
        if valid_term(term) and len(definition.split()) >= 3:
            found.append(FoundDefinition(term, definition, match.start("term"), stop, "means"))
    return found


def _inside_open_parenthesis(subject: str) -> str:
    """The words after a parenthesis the subject leaves open: '... against a Contributor
    (the Contributor against whom You assert such claim is referred to as "Participant")'
    names the subject inside the parenthesis, not the sentence around it."""
    depth = 0
    for position in range(len(subject) - 1, -1, -1):
        if subject[position] == ")":
            depth += 1
        elif subject[position] == "(":
            if not depth:
                return subject[position + 1 :].strip()
            depth -= 1
    return subject


def _conditional_definitions(marked: Unmarked) -> list[FoundDefinition]:
    """'An MMC is "eligible for relicensing" if it is licensed ...': the condition defines."""
    found = []
    for match in _windowed(_CONDITIONAL, _CONDITIONAL_CUE, marked.quoted, 140):
        term, start = term_at(match.group("term"), match.start("term"))
        end = _SENTENCE_END.search(marked.quoted, match.end())
        stop = end.start() if end else len(marked.quoted)
        definition, stop = clean_definition(marked, match.end(), stop)
        if valid_term(term) and definition:
            found.append(FoundDefinition(term, definition, start, stop, "means"))
    return found


def _quoted_means(
    text: str, emphasised: frozenset[int]
) -> list[tuple[int, int, list[tuple[str, int]]]]:
    """(match start, definition start, [(term, term offset)]) for each quoted match."""
    matches = []
    for match in _MEANS.finditer(text):
        emphasis = match.start("term") - 1 in emphasised
        if match.group("include") and emphasis and not _opens_paragraph(text, match.start()):
            continue  # "The **Agreement** includes an additional claim": bold, not a term
        if _LABELLED.search(text, max(0, match.start() - 20), match.start("term")):
            continue  # "These markers, labeled ‘‘INOP,’’ indicate that ...": the markers do
        if match.group("include") and _BCP14.fullmatch(match.group("term")):
            continue  # 'responses "MUST NOT" include a body': a requirement, not a term
        signal = _SIGNALS.match(match.group("verb")) and _CLAUSE.match(text, match.end())
        if signal and not match.group("lead"):
            # 'the keyword "trailers" indicates that the client ...': what a value signals;
            # 'The terms "SHOULD" and "SHOULD NOT" indicate that ...' still defines them
            continue
        terms = [(match.group("term"), match.start("term"))]
        for alias in QUOTED_TERM.finditer(match.group("aliases")):
            terms.append((alias.group("term"), match.start("aliases") + alias.start("term")))
        matches.append((match.start(), match.end(), terms))
    return _without_quoted_definitions(text, matches)


def _opens_paragraph(text: str, start: int) -> bool:
    """Whether a paragraph opens at ``start``: a legislative list's entry ("*Australia*
    includes Norfolk Island.") after a blank line, not a sentence's subject."""
    before = text[max(0, start - 200) : start]
    return start == 0 or before.endswith("\n\n") or before.rstrip(" \t").endswith("\n\n")


def _without_quoted_definitions(
    text: str, matches: list[tuple[int, int, list[tuple[str, int]]]]
) -> list[tuple[int, int, list[tuple[str, int]]]]:
    """'"inbound" means "traveling toward the origin server", and "outbound" means ...':
    the quoted words right after a verb are the definition, not a term; the terms quoted
    after them still are."""
    verbs_end = {def_start for _, def_start, _ in matches}
    kept = []
    for start, def_start, terms in matches:
        term_start = terms[0][1]
        if any(
            end in verbs_end and not text[end:term_start].strip(" \t\"“‘'`")
            for end in range(term_start - 4, term_start + 1)
        ):
            start = term_start + len(terms[0][0]) + 1  # after its closing quote
            terms = terms[1:]
            if not terms:
                continue
        kept.append((start, def_start, terms))
    return kept


def _copula_means(
    text: str,
    matches: list[tuple[int, int, list[tuple[str, int]]]],
    pattern: re.Pattern[str],
    emphasised: frozenset[int] = frozenset(),
) -> list[tuple[int, int, list[tuple[str, int]]]]:
    """Copula definitions opening a sentence; the verb stays in the definition text.
    ``emphasised``: quotes put in for emphasis, which do not count for ``pattern``."""
    taken = {terms[0][1] for _, _, terms in matches}
    found = []
    for match in _windowed(pattern, _COPULA_CUE, text, 200):
        if match.start("term") not in taken and match.start("term") - 1 not in emphasised:
            terms = [(match.group("term"), match.start("term"))]
            found.append((match.start(), match.start("verb"), terms))
    return found


def _announced_means(
    text: str, matches: list[tuple[int, int, list[tuple[str, int]]]]
) -> list[tuple[int, int, list[tuple[str, int]]]]:
    """Unquoted terms a lead announces ("The term authorization refers to", "As used in
    this Agreement, Affiliate means"); not "The term of this Agreement includes any
    renewal" (a clause, not a name) nor "the term vendor does not include"."""
    taken = [(start, end) for start, end, _ in matches]
    found = []
    for match in _windowed(_ANNOUNCED, _ANNOUNCED_CUE, text, 12, 240):
        term = match.group("term")
        words = term.casefold().split()
        clause = _CLAUSE_LEADS.intersection(words) or words[0] in _PRONOUNS
        # "the term hereof", "the following terms have the meanings ...": no name
        clause = clause or any(_NOT_A_NAME.fullmatch(word) for word in words)
        signal = _SIGNALS.match(match.group("verb")) and _CLAUSE.match(text, match.end())
        # "the server means to close": intends, does not define
        signal = signal or (match.group("verb") == "means" and text.startswith("to ", match.end()))
        overlap = any(a < match.end() and match.start("term") < b for a, b in taken)
        if clause or signal or overlap or _VERB_WORDS.intersection(words):
            continue
        found.append((match.start("term"), match.end(), [(term, match.start("term"))]))
    return found


def _windowed(
    pattern: re.Pattern[str], cue: re.Pattern[str], text: str, reach: int, tail: int = 80
) -> Iterator[re.Match[str]]:
    """``pattern``'s matches, sought only around the rare words it needs (``cue``), each
    once: the same matches as ``pattern.finditer(text)`` when none reaches back further
    than ``reach`` characters before its cue nor ends ``tail`` after it, at a fraction of
    the cost."""
    seen: set[int] = set()
    for hit in cue.finditer(text):
        for match in pattern.finditer(text, max(0, hit.start() - reach), hit.end() + tail):
            if match.start() not in seen and match.start() <= hit.start():
                seen.add(match.start())
                yield match


def _unquoted_terms(match: re.Match[str]) -> list[tuple[str, int]]:
    """The term, or the two a plural verb defines: "(j) Depository institution and
    institution mean an institution defined in ..."."""
    term, start = match.group("term"), match.start("term")
    joined = re.fullmatch(r"(.+?)\s+and\s+(.+)", term)
    if joined and re.match(r"mean\b|(?:shall|will)\s+mean\b", match.group("verb")):
        return [(joined.group(1), start), (joined.group(2), start + joined.start(2))]
    return [(term, start)]


# how the document's words are to be read, not a term: "Words importing the singular
# number", "Expressions denoting persons", "References to a statute"
_INTERPRETATION_RULE = re.compile(
    r"(?i)(?:words?|expressions?|references?|headings?)\s+(?:importing|denoting|referring"
    r"|to|in\s+the)\b"
)


def _valid_unquoted(term: str) -> bool:
    words = term.casefold().split()
    if words[0] in _PRONOUNS or words[0] in _CLAUSE_LEADS or _VERB_WORDS.intersection(words):
        return False
    if _INTERPRETATION_RULE.match(term):
        return False  # "Words importing the singular number include the plural": a rule
    return words not in (["the", "term"], ["the", "terms"])  # "(2) The term includes ..."


def leading_points(text: str) -> str:
    """The run of points ("(1) ...", "(a) ...") that opens ``text``, as a definition's text
    (markup removed, whitespace collapsed, no final stop): "" when none opens it."""
    marked = unmark(text if text.startswith("\n") else "\n" + text)
    return clean_definition(marked, 0, _points_end(marked.plain, 0))[0]


def _points_end(text: str, end: int) -> int:
    """The end of the run of points ("(1) ...", "(a) ...") that follows ``end``, if any."""
    while True:
        start = end
        while text.startswith("\n", start):
            start += 1
        if start == end or not MARKER.match(text, start):
            return end
        end = paragraph_end(text, start)


def _definition_end(text: str, term_start: int, def_start: int) -> int:
    """End of the numbered item holding the term, else of its paragraph or sentence."""
    line_start = text.rfind("\n", 0, term_start) + 1
    item = item_start(text, line_start)
    if item is not None:
        end = item_end(text, def_start, item)
        if _ITEM_LEAD.fullmatch(text[line_start:term_start]):
            return end
        sentence = _SENTENCE_END.search(text, def_start, end)
        return sentence.end() if sentence else end
    end = paragraph_end(text, def_start)
    if not text[def_start:end].strip(" \t—–-:"):  # 'the term “X” includes—' then its points
        end = _points_end(text, end)
    blank = text.rfind("\n\n", 0, term_start)
    paragraph_start = blank + 2 if blank >= 0 else 0
    lead = text[paragraph_start:term_start]
    if re.fullmatch(r"[\s\"'‘“`*]*(?i:the\s+terms?\s*)?[\"'‘“`*]*", lead):
        return end
    sentence = _SENTENCE_END.search(text, def_start, end)
    return sentence.end() if sentence else end
