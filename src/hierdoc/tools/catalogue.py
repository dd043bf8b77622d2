"""What the agent tools are: names, descriptions, argument models and result shapes.

One definition serves every adapter: the MCP server advertises
``ToolSpec.arguments.model_json_schema()`` and ``ToolSpec.output.model_json_schema()``,
and :mod:`hierdoc.tools.agents` turns the same argument models into OpenAI and
Anthropic function-calling definitions. The result shapes are pydantic models built
from the fields of the dataclasses in :mod:`hierdoc.models`, typed as those declare
them, so a field changed there changes the advertised schema too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, get_type_hints

from pydantic import BaseModel, Field, ValidationError, create_model

from ..api import DefinitionLookup, ReferenceLookup
from ..config import MAX_TOP_K, Settings
from ..errors import InputError, NotFoundError
from ..inputs import checked_strings
from ..models import (
    Chunk,
    CrossRef,
    Definition,
    DocumentRecord,
    Passage,
    SearchMode,
    SearchResponse,
    SearchResult,
    SectionRecord,
    StoredChunk,
)
from .names import TOOL_NAMES


def _unwrap(text: str) -> str:
    """Join the lines of each paragraph: source is wrapped for people, a model reads prose."""
    return "\n\n".join(" ".join(p.split()) for p in text.split("\n\n"))


INSTRUCTIONS = _unwrap("""\
These tools search a local index of formal documents (legislation, regulations, contracts,
standards). Start with `search`. Cite what you use by file name and section id, as the results
give them (e.g. "gdpr.md, article-17-3-b"). Read a whole provision with `get_section`, check what
a defined term means in these documents with `define`, follow cross-references with
`references`, and see what is indexed with `list_documents`. When a result says no_match, the
documents do not answer the question: say so rather than guess.""")

CITATION_SPELLINGS = (
    '"Article 17(3)(b)", "Art. 17(3)(b)", "Article 17 paragraph 3 point (b)", '
    '"Article 17(3), point (b)", "Section 203(a)(1)", "sec. 203(a)(1)", "§ 203(a)(1)", "§ 4.2", '
    '"Chapter III", "paragraph (k) of the 737 MAX AD", "paragraphs (h) and (k)"'
)

_DESCRIPTIONS = {
    "search": f"""\
Search the indexed documents and return the best passages, each with its document (file name),
where it sits in the structure (e.g. "Chapter III > Section 3 > Article 17") and its section id.
Use it first for any question about the documents.

The query can be plain words ("right to be forgotten"), a "quoted phrase" that must appear as
written, an acronym, or a citation in any common spelling: {CITATION_SPELLINGS}. A cited section
comes first; a citation that is not in the index is reported in `notes` instead of returning
unrelated text. Hybrid mode (the default) combines meaning, keywords and exact citations; use
mode "exact" to get only passages holding a quoted phrase or cited section, "keyword" for rare
terms.

If `no_match` is true nothing convincing was found: say that the documents do not cover it.
Narrow with `source` (a file name from list_documents), `section` (a section id such as
"chapter-3"; everything under it is searched) or `where` (document metadata from
list_documents, e.g. {{"type": "contract"}}). Each passage lists the definitions of defined
terms it uses and the cross-references it makes. The text shows the sentences of each result
that match best (the cited point, the quoted phrase, the query's words); read the whole passage
with get_section and its chunk id. Cite passages by file name and section id.""",
    "get_section": f"""\
Read one provision in full, with where it sits: its parent chain, its own text, the passage that
holds it, its children (numbered paragraphs, points) and the previous and next passages. `id` is
a section id from search results ("article-17", "article-17-3-b", "section-203-a"), a chunk id
("gdpr-a2c219:article-17:0"), or a citation ({CITATION_SPELLINGS}). Use it to read a cited or
cross-referenced provision, or to continue to the next passage. When several documents have the
same section id, pass `source` (a file name from list_documents) to choose.""",
    "define": """\
What a term means in these documents: every definition of the term in the corpus ("X means ...",
definition sections and glossaries, parenthetical definitions, acronyms), each with its file name
and section id. `conflict` is true when documents define the term differently: then say which
document's definition you rely on. Use it before interpreting a defined term such as
"personal data" or "Confidential Information". A definition of style "sentence" was found at the
lookup, in a sentence that defines the term ("X is a ...", "... ("X")"): quote it as that
sentence. An empty list means the documents do not define the term.""",
    "references": """\
Cross-references of a provision: outgoing (what it refers to, e.g. "point (a) of Article 6(1)"
resolved to article-6-1-a; references to other acts are marked external) and incoming (the
provisions that refer to it or to its paragraphs). `id` is a section id, chunk id or citation, as
for get_section; pass `source` when several documents have that id. Use it to find exceptions,
conditions and related obligations, then read them with get_section.""",
    "list_documents": """\
List the indexed documents: file name, title, format, number of passages and metadata (front
matter, document properties); the first 200 by name when there are more, with the total. Use it
to learn what the corpus holds, to get the file names that the `source` argument of search,
get_section and references accepts, and the metadata that the `where` argument of search
filters on.""",
}

DESCRIPTIONS = {name: _unwrap(text) for name, text in _DESCRIPTIONS.items()}

TITLES = {
    "search": "Search the documents",
    "get_section": "Read a section",
    "define": "Look up a defined term",
    "references": "Cross-references of a section",
    "list_documents": "List the indexed documents",
}

# -- arguments --------------------------------------------------------------------------

Query = Annotated[
    str,
    Field(
        description='Words, a "quoted phrase", an acronym or a citation such as '
        '"Article 17(3)(b)" or "sec. 203(a)(1)".'
    ),
]
TopK = Annotated[
    int,
    Field(
        description=f"How many passages to return, 1 to {MAX_TOP_K}.",
        json_schema_extra={"minimum": 1, "maximum": MAX_TOP_K},
    ),
]
Mode = Annotated[
    SearchMode,
    Field(description="hybrid (default), semantic, keyword, or exact (citations and phrases)."),
]
SourceFilter = Annotated[
    str | None,
    Field(description="Only this document: a file name as listed by list_documents."),
]
SectionFilter = Annotated[
    str | None,
    Field(description='Only passages under this section id, e.g. "chapter-3" or "article-17".'),
]
WhereFilter = Annotated[
    dict[str, str] | None,
    Field(
        description='Only documents whose metadata (see list_documents) match, e.g. {"type": '
        '"contract", "tags": "vendor"}: every key must match; a list in the metadata matches '
        "any of its members."
    ),
]
PassageResults = Annotated[
    bool,
    Field(
        description="Rank passages rather than whole chunks: each result is one passage (the "
        "best few sentences of its chunk), so top_k results fit a small reading budget."
    ),
]
Explain = Annotated[
    bool,
    Field(
        description="Also say how the results ranked: how the query was read, each "
        "retriever's rank and score for each result, the fusion and any pinning."
    ),
]
Identifier = Annotated[
    str,
    Field(
        description='A section id ("article-17-3-b"), a chunk id from search results, or a '
        'citation ("Art. 17(3)(b)").'
    ),
]
SourceChoice = Annotated[
    str | None,
    Field(description="The document, when several have this id: a file name from list_documents."),
]
Term = Annotated[str, Field(description='The term or acronym, e.g. "personal data" or "EACA".')]


def _argument_models(settings: Settings) -> dict[str, type[BaseModel]]:
    """Each tool's arguments; ``settings`` gives the defaults of ``top_k`` and ``mode``."""
    located: dict[str, Any] = {"id": (Identifier, ...), "source": (SourceChoice, None)}
    return {
        "search": create_model(
            "searchArguments",
            query=(Query, ...),
            top_k=(TopK, settings.top_k),
            mode=(Mode, settings.search_mode),
            source=(SourceFilter, None),
            section=(SectionFilter, None),
            where=(WhereFilter, None),
            passages=(PassageResults, settings.passage_results),
            explain=(Explain, False),
        ),
        "get_section": create_model("get_sectionArguments", **located),
        "define": create_model("defineArguments", term=(Term, ...)),
        "references": create_model("referencesArguments", **located),
        "list_documents": create_model("list_documentsArguments"),
    }


# -- results: the dataclasses' fields, as the CLI's --json gives them ---------------------


def _hint(cls: type, field: str) -> Any:
    """The type the dataclass ``cls`` declares for ``field``."""
    return get_type_hints(cls)[field]


def _shape(name: str, cls: type, *fields: str | tuple[str, Any] | tuple[str, Any, Any]) -> Any:
    """A pydantic model named ``name``: each field a field of the dataclass ``cls`` (typed as
    ``cls`` declares it), or a ``(name, type[, default or Field])`` of the result's own."""
    hints = get_type_hints(cls)
    definitions: dict[str, Any] = {}
    for field in fields:
        if isinstance(field, str):
            definitions[field] = (hints[field], ...)
        else:
            definitions[field[0]] = (field[1], field[2] if len(field) > 2 else ...)
    return create_model(name, **definitions)


# A citation in the query and the section it resolved to (SearchResponse.citations).
class CitationOut(BaseModel):
    text: str
    section_id: str | None
    resolved: bool


DefinitionOut = _shape(
    "DefinitionOut",
    Definition,
    *("term", "definition", "source", "section_id", "chunk_id"),
    (
        "style",
        str,
        Field(
            "means",
            description='How it was found; "sentence": not stored at ingest but read at the '
            "lookup from a sentence defining the term.",
        ),
    ),
    ("truncated", bool, False),
)
CrossRefOut = _shape(
    "CrossRefOut", CrossRef, "text", "target_section_id", ("resolved", bool), "external"
)
PassageOut = _shape("PassageOut", Passage, "text", "start", "end")
ResultOut = _shape(
    "ResultOut",
    SearchResult,
    *("chunk_id", "source", "title", "parent_chain", "section_id", "heading", "chunk_type"),
    *("content", "score", "scores", "ranks"),
    ("page_start", int | None, Field(None, description="First page (1-based) of a PDF passage.")),
    ("page_end", int | None, Field(None, description="Last page of a PDF passage.")),
    ("definitions", list[DefinitionOut]),
    ("cross_references", list[CrossRefOut]),
    (
        "passage",
        PassageOut | None,
        Field(None, description="The best-matching sentences: content[start:end]."),
    ),
    (
        "passages",
        list[PassageOut],
        Field([], description="passage, then further non-overlapping matching sentences."),
    ),
    (
        "highlights",
        list[tuple[int, int]],
        Field([], description="[start, end] offsets into content of what matched."),
    ),
    ("fusion_score", float | None, Field(None, description="What rank fusion gave it.")),
    ("pinned", bool, Field(False, description="First because the query cites its section.")),
    ("pin", str | None, Field(None, description='Why it is pinned ("cites Section 8.4").')),
    (
        "sections",
        list[str],
        Field(
            [],
            description="Every section id the passage's chunk covers, its first section "
            "first; section_id is the one holding the match (the cited point, the best "
            "sentence).",
        ),
    ),
)
SearchOutput = _shape(
    "SearchOutput",
    SearchResponse,
    *("query", "mode", "no_match", "notes"),
    ("citations", list[CitationOut]),
    ("results", list[ResultOut]),
    (
        "explain",
        dict[str, Any] | None,
        Field(None, description="How the results ranked, when explain was asked for."),
    ),
)

ChunkBrief = _shape("ChunkBrief", Chunk, "chunk_id", "section_id", "heading")
SectionOut = _shape(
    "SectionOut", SectionRecord, "section_id", "heading", "kind", "text", "parent_id"
)
ChildOut = _shape("ChildOut", SectionRecord, "section_id", "heading")
SectionOutput = _shape(
    "SectionOutput",
    Chunk,
    *("chunk_id", "source", "title", "parent_chain", "section_id", "section_path", "heading"),
    *("chunk_type", "content"),
    ("context", _hint(StoredChunk, "context")),
    "token_count",
    ("previous", ChunkBrief | None),
    ("next", ChunkBrief | None),
    ("section", SectionOut | None),
    ("children", list[ChildOut]),
    (
        "section_chain",
        list[str],
        Field(
            description="Parent chain of the requested section (deeper than the passage's own "
            "parent_chain when a paragraph or point was asked for)."
        ),
    ),
    ("notes", list[str]),
    (
        "other_sources",
        list[str],
        Field(description="Other documents that have the same section id."),
    ),
)

DefineOutput = _shape(
    "DefineOutput",
    DefinitionLookup,
    "term",
    ("conflict", bool),
    ("definitions", list[DefinitionOut]),
)
IncomingRefOut = _shape(
    "IncomingRefOut",
    CrossRef,
    "text",
    ("from_section_id", _hint(CrossRef, "section_id")),
    ("from_chunk_id", _hint(CrossRef, "chunk_id")),
    "source",
    "target_section_id",
)
ReferencesOutput = _shape(
    "ReferencesOutput",
    ReferenceLookup,
    "section_id",
    ("source", _hint(CrossRef, "source")),
    ("outgoing", list[CrossRefOut]),
    ("incoming", list[IncomingRefOut]),
    ("notes", list[str]),
)
DocumentOut = _shape(
    "DocumentOut",
    DocumentRecord,
    *("source", ("name", str), "title", "format", "chars"),
    ("chunks", _hint(DocumentRecord, "chunk_count")),
    ("metadata", dict[str, Any], {}),
)
DocumentsOutput = create_model(
    "DocumentsOutput",
    documents=(list[DocumentOut], ...),
    total_chunks=(int, ...),
    total_documents=(int, ...),
)


OUTPUTS: dict[str, type[BaseModel]] = {
    "search": SearchOutput,
    "get_section": SectionOutput,
    "define": DefineOutput,
    "references": ReferencesOutput,
    "list_documents": DocumentsOutput,
}


def check_output(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` validated against the tool's result shape, as JSON data (extra keys dropped)."""
    return OUTPUTS[name].model_validate(data).model_dump(mode="json")


# -- the tools ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolSpec:
    """One tool as every adapter advertises it."""

    name: str
    title: str
    description: str
    arguments: type[BaseModel]
    output: type[BaseModel]

    def parameters(self) -> dict[str, Any]:
        """The JSON schema of the arguments (pydantic's, titles included)."""
        return self.arguments.model_json_schema()

    def validate(self, arguments: dict[str, Any] | str | None) -> dict[str, Any]:
        """Checked arguments with their defaults; a dict, or the JSON string OpenAI sends.

        Raises :class:`InputError` with one line a model can act on: an unknown argument
        name (which would otherwise be ignored), a string holding a NUL character or a
        lone surrogate, or one short line per invalid value.
        """
        given = _as_object(arguments)
        expected = set(self.arguments.model_fields)
        unknown = sorted(_printable(name) for name in set(given) - expected)
        if unknown:
            allowed = ", ".join(sorted(expected)) or "none"
            raise InputError(
                f"unknown argument(s) {', '.join(unknown)}; the arguments are: {allowed}"
            )
        for name, value in given.items():
            checked_strings(value, name)
        try:
            checked = self.arguments.model_validate(given)
        except ValidationError as error:
            raise InputError(describe_validation_error(error)) from None
        return {field: getattr(checked, field) for field in self.arguments.model_fields}


def _printable(name: str) -> str:
    """An argument name as a message may show it: non-ASCII characters escaped."""
    return name.encode("ascii", "backslashreplace").decode()


def _as_object(arguments: dict[str, Any] | str | None) -> dict[str, Any]:
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as error:
            raise InputError(f"the arguments are not valid JSON: {error}") from None
    if not isinstance(arguments, dict):
        raise InputError("the arguments must be a JSON object")
    return arguments


def describe_validation_error(error: ValidationError) -> str:
    """One short line per invalid argument: ``top_k: Input should be a valid integer (got 'x')``."""
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        if item["type"] == "missing":
            problems.append(f"{where}: required")
        else:
            problems.append(f"{where}: {item['msg']} (got {item.get('input')!r})")
    return "invalid arguments: " + "; ".join(problems)


def describe(name: str, settings: Settings) -> str:
    """A tool's description, followed by the corpus description of the settings if any."""
    if settings.description:
        return f"{DESCRIPTIONS[name]}\n\nThis index: {settings.description.strip()}"
    return DESCRIPTIONS[name]


def tool_specs(settings: Settings | None = None) -> dict[str, ToolSpec]:
    """The five tools by name, in :data:`TOOL_NAMES` order, with ``settings``' defaults."""
    settings = settings or Settings()
    arguments = _argument_models(settings)
    return {
        name: ToolSpec(name, TITLES[name], describe(name, settings), arguments[name], OUTPUTS[name])
        for name in TOOL_NAMES
    }


def tool_spec(name: str, settings: Settings | None = None) -> ToolSpec:
    """One tool; an unknown name is a :class:`NotFoundError` listing the tools."""
    specs = tool_specs(settings)
    if name not in specs:
        raise NotFoundError(f"unknown tool {name!r}; the tools are: {', '.join(specs)}")
    return specs[name]
