"""The search page: the form's parameters checked, the search run, each result shown
with its breadcrumb, file, pages, section id, passage and ranks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from ..config import MAX_TOP_K
from ..errors import InputError
from ..models import CHUNK_TYPES, SEARCH_MODES, SearchResult
from ..search.explain import ranking_detail
from ..search.where import parse_where
from .marking import marked_text
from .paging import page_number
from .reader import Reader, url

MAX_PER_PAGE = 50
PREVIEW_CHARS = 600
"""How much of a result without a passage is shown."""


@dataclass(frozen=True)
class SearchForm:
    """The search form's values, checked."""

    q: str = ""
    mode: str = ""
    document: str = ""
    section: str = ""
    type: str = ""
    where: str = ""
    k: int = 10
    page: int = 1
    explain: bool = False

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> SearchForm:
        mode = params.get("mode", "")
        if mode and mode not in SEARCH_MODES:
            raise InputError(f"mode is one of {', '.join(SEARCH_MODES)}, not {mode[:40]!r}")
        chunk_type = params.get("type", "")
        if chunk_type and chunk_type not in CHUNK_TYPES:
            raise InputError(f"type is one of {', '.join(CHUNK_TYPES)}, not {chunk_type[:40]!r}")
        k = page_number(params.get("k") or "10", "k (results per page)")
        if k > MAX_PER_PAGE:
            raise InputError(f"k (results per page) is at most {MAX_PER_PAGE}, not {k}")
        return cls(
            q=params.get("q", "").strip(),
            mode=mode,
            document=params.get("document", "").strip(),
            section=params.get("section", "").strip(),
            type=chunk_type,
            where=params.get("where", "").strip(),
            k=k,
            page=page_number(params.get("page")),
            explain=params.get("explain") in ("1", "on", "true"),
        )

    def params(self, **changes: Any) -> dict[str, Any]:
        values = {
            "q": self.q, "mode": self.mode, "document": self.document, "section": self.section,
            "type": self.type, "where": self.where, "k": self.k if self.k != 10 else None,
            "explain": "1" if self.explain else None, "page": self.page,
        }  # fmt: skip
        values.update(changes)
        if values["page"] == 1:
            values["page"] = None
        return values

    def where_filter(self) -> dict[str, list[str]] | None:
        """``type=contract, tags=vendor`` (commas or new lines between pairs) as a filter."""
        items = [i.strip() for i in self.where.replace("\n", ",").split(",") if i.strip()]
        for item in items:
            key, _, value = item.partition("=")
            if not key.strip() or not value.strip():
                raise InputError(
                    "metadata takes KEY=VALUE pairs separated by commas "
                    f"(e.g. type=contract, tags=vendor), not {item[:80]!r}"
                )
        return parse_where(items) if items else None


@dataclass
class ResultView:
    number: int
    result: SearchResult
    document: str
    pages: str
    passage: Markup
    section_url: str
    page_url: str
    ranks: list[tuple[str, str]]
    explanation: str = ""
    definitions: list[dict] = field(default_factory=list)


def pages_label(first: int | None, last: int | None) -> str:
    if first is None:
        return ""
    return f"p. {first}" if last in (None, first) else f"pp. {first}–{last}"


def passage_of(result: SearchResult) -> Markup:
    """The result's passage (or the start of its text) with the query's matches marked."""
    if result.passage is not None:
        start, end = result.passage.start, result.passage.end
    else:
        start, end = 0, min(len(result.content), PREVIEW_CHARS)
    hits = [(max(s, start) - start, min(e, end) - start, "hit")
            for s, e in result.highlights if s < end and e > start]  # fmt: skip
    text = result.content[start:end]
    ellipsis = Markup(" …") if end < len(result.content) else Markup("")
    return marked_text(text, hits) + ellipsis


def rank_labels(result: SearchResult) -> list[tuple[str, str]]:
    """Each modality's rank, "#3" or "–" when it did not find the result."""
    return [(m, "–" if r is None else f"#{r}") for m, r in result.ranks.items()]


def explanation_line(entry: dict[str, Any]) -> str:
    line = ranking_detail(entry, arrow="→")
    return line + (f"; pinned: {entry['pin']}" if entry.get("pin") else "")


def result_view(reader: Reader, number: int, result: SearchResult, explained: dict) -> ResultView:
    start, end = (result.passage.start, result.passage.end) if result.passage else (None, None)
    page_url = ""
    if result.page_start is not None or result.passage is not None:
        first_page = result.page_start if result.passage is None else None  # found there
        page_url = url("/page", doc=result.source, page=first_page,
                       chunk=result.chunk_id, start=start, end=end)  # fmt: skip
    return ResultView(
        number=number,
        result=result,
        document=reader.display_name(result.source),
        pages=pages_label(result.page_start, result.page_end),
        passage=passage_of(result),
        section_url=url(
            "/section",
            doc=result.source,
            id=result.section_id,
            chunk=result.chunk_id,
            start=start,
            end=end,
        ),  # fmt: skip
        page_url=page_url,
        ranks=rank_labels(result),
        explanation=explanation_line(explained) if explained else "",
        definitions=result.definitions,
    )


MAX_LISTED_DOCUMENTS = 500
"""The document box suggests the indexed documents up to this many."""


def listed_documents(reader: Reader) -> list[str]:
    sources = reader.documents()
    if len(sources) > MAX_LISTED_DOCUMENTS:
        return []
    return sorted(sources, key=reader.display_name)


def search_context(reader: Reader, form: SearchForm) -> dict[str, Any]:
    """What the search page shows for ``form``: nothing searched without a query."""
    context: dict[str, Any] = {
        "form": form, "modes": SEARCH_MODES, "types": CHUNK_TYPES, "results": [],
        "documents": listed_documents(reader),
    }  # fmt: skip
    if not form.q:
        return context
    wanted = form.k * form.page
    if wanted > MAX_TOP_K:
        raise InputError(f"at most {MAX_TOP_K} results can be paged through: page {form.page} "
                         f"at {form.k} results a page goes past that")  # fmt: skip
    response = reader.index.search(
        form.q, top_k=wanted, mode=form.mode or None, source=form.document or None,
        section=form.section or None, chunk_type=form.type or None,
        where=form.where_filter(), explain=form.explain,
    )  # fmt: skip
    explained = (response.explain or {}).get("results", [])
    first = (form.page - 1) * form.k
    shown = response.results[first:wanted]
    context.update(
        response=response,
        results=[
            result_view(reader, first + n + 1, r, explained[first + n] if explained else {})
            for n, r in enumerate(shown)
        ],
        plan=_plan_lines(response.explain),
        previous_url=url("/", **form.params(page=form.page - 1)) if form.page > 1 else "",
        next_url=url("/", **form.params(page=form.page + 1))
        if len(response.results) == wanted and wanted + form.k <= MAX_TOP_K
        else "",
    )
    return context


def _plan_lines(explained: dict | None) -> list[str]:
    if not explained:
        return []
    from ..search.explain import explain_lines

    lines = explain_lines(explained)
    return lines[: lines.index("results:")] if "results:" in lines else lines
