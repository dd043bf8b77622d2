"""The report of an evaluation run: per-method results, the indexes used, the table.

:meth:`EvalReport.table` is the markdown printed by ``hierdoc eval``;
:meth:`EvalReport.to_dict` is its JSON, per-query misses included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .obliqa_citations import CitedFirst

ANSWERED_BY = "MRR@10"
"""A query is answered when this measure is above 0: something relevant is in its top 10."""


@dataclass(frozen=True)
class FlagAgreement:
    """How a method's ``no_match`` flag agrees with relevance: as a detector of the queries
    with nothing relevant in the top 10 ("unanswered"), its precision and recall."""

    queries: int
    flagged: int
    unanswered: int
    flagged_unanswered: int

    @classmethod
    def of(cls, flags: dict[str, bool], answered: dict[str, bool]) -> FlagAgreement:
        """The agreement over the queries both dicts hold (query id -> flag / answered)."""
        ids = flags.keys() & answered.keys()
        return cls(
            len(ids),
            sum(flags[q] for q in ids),
            sum(not answered[q] for q in ids),
            sum(flags[q] and not answered[q] for q in ids),
        )

    @property
    def precision(self) -> float | None:
        return self.flagged_unanswered / self.flagged if self.flagged else None

    @property
    def recall(self) -> float | None:
        return self.flagged_unanswered / self.unanswered if self.unanswered else None

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.__dict__,
            "precision": _rounded(self.precision),
            "recall": _rounded(self.recall),
        }

    def row(self, name: str) -> list[str]:
        return [
            name,
            str(self.queries),
            str(self.flagged),
            str(self.unanswered),
            "–" if self.precision is None else f"{self.precision:.2f}",
            "–" if self.recall is None else f"{self.recall:.2f}",
        ]


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass
class MethodResult:
    name: str
    kind: str
    description: str
    settings: dict[str, Any]
    metrics: dict[str, float]
    misses: list[dict[str, Any]]
    queries: int
    seconds: float
    index: str | None = None
    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    """Query group (with its size) -> mean metrics over its queries."""
    no_match: FlagAgreement | None = None
    """How the method's ``no_match`` flag agrees with relevance (hierdoc methods)."""
    citations: CitedFirst | None = None
    """The corpus's citation queries: per form, how many find the cited passage first."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "settings": self.settings,
            "index": self.index,
            "metrics": {k: round(v, 4) for k, v in self.metrics.items()},
            "groups": {
                g: {k: round(v, 4) for k, v in values.items()} for g, values in self.groups.items()
            },
            "queries": self.queries,
            "ms_per_query": round(1000 * self.seconds / max(self.queries, 1), 2),
            "queries_with_misses_at_10": len(self.misses),
            "misses": self.misses,
            "no_match": self.no_match.to_dict() if self.no_match else None,
            "citations": self.citations.to_dict() if self.citations else None,
        }


@dataclass
class IndexInfo:
    key: str
    directory: str
    settings: dict[str, Any]
    documents: int
    chunks: int
    windows: int
    ingest_seconds: float
    windows_embedded: int
    unlocated_chunks: int = 0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class EvalReport:
    corpus: str
    description: str
    unit: str
    metrics: tuple[str, ...]
    main_metric: str
    queries: int
    documents: int
    results: list[MethodResult] = field(default_factory=list)
    indexes: list[IndexInfo] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    published: dict[str, dict[str, float]] = field(default_factory=dict)
    """Published figures printed beside the measured ones (who and where -> metric -> value)."""

    def result(self, name: str) -> MethodResult | None:
        return next((r for r in self.results if r.name == name), None)

    def versus(self, name: str, reference: str = "dense") -> float | None:
        """Relative change of the main metric of ``name`` against ``reference``."""
        mine, ref = self.result(name), self.result(reference)
        if mine is None or ref is None or ref.metrics[self.main_metric] == 0:
            return None
        base = ref.metrics[self.main_metric]
        return (mine.metrics[self.main_metric] - base) / base

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus,
            "description": self.description,
            "unit": self.unit,
            "main_metric": self.main_metric,
            "metrics": list(self.metrics),
            "queries": self.queries,
            "documents": self.documents,
            "indexes": [i.to_dict() for i in self.indexes],
            "notes": self.notes,
            "published": self.published,
            "results": [r.to_dict() for r in self.results],
        }

    def rows(self) -> list[list[str]]:
        """One table row per method: name, description, metrics (main first), vs dense."""
        order = [self.main_metric, *(m for m in self.metrics if m != self.main_metric)]
        rows = []
        for r in self.results:
            change = self.versus(r.name)
            rows.append(
                [
                    r.name,
                    r.kind,
                    r.description,
                    *(format_metric(m, r.metrics[m]) if m in r.metrics else "–" for m in order),
                    "" if change is None or r.name == "dense" else f"{100 * change:+.1f}%",
                    f"{1000 * r.seconds / max(r.queries, 1):.1f}",
                    str(len(r.misses)),
                ]
            )
        return rows

    def table(self) -> str:
        order = [self.main_metric, *(m for m in self.metrics if m != self.main_metric)]
        header = ["method", "kind", "what", *order, "main vs dense", "ms/query", "misses@10"]
        rows = self.rows() + [
            [who, "published", "", *(_figure(m, figures) for m in order), "", "", ""]
            for who, figures in self.published.items()
        ]
        lines = [
            f"{self.description}: {self.queries} queries, {self.documents} documents",
            "",
            markdown_table(header, rows, numeric_from=3),
        ]
        if any(r.groups for r in self.results):
            lines += ["", self.group_table(order)]
        if any(r.no_match for r in self.results):
            lines += ["", self.no_match_table()]
        if any(r.citations for r in self.results):
            lines += ["", self.citation_table()]
        lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines)

    def group_table(self, order: Sequence[str]) -> str:
        """The metrics of each method on each query group."""
        rows = [
            [r.name, group, *(_figure(m, values) for m in order)]
            for r in self.results
            for group, values in sorted(r.groups.items())
        ]
        return markdown_table(["method", "group (queries)", *order], rows, numeric_from=2)

    def no_match_table(self) -> str:
        """Each hierdoc method's ``no_match`` flag against relevance (:class:`FlagAgreement`)."""
        header = ["no_match of", "queries", "flagged", "unanswered@10", "precision", "recall"]
        rows = [r.no_match.row(r.name) for r in self.results if r.no_match]
        return markdown_table(header, rows, numeric_from=1)

    def citation_table(self) -> str:
        """Each method's citation queries by form: the share that find the cited passage
        first, and how many were asked."""
        rows = [
            [r.name, form, f"{hits / total:.3f}", f"{hits}/{total}"]
            for r in self.results
            if r.citations
            for form, (hits, total) in [*r.citations.forms.items(), ("all", r.citations.total)]
        ]
        header = ["citations by", "form", "cited passage first", "queries"]
        return markdown_table(header, rows, numeric_from=2)


def _figure(name: str, values: dict[str, float]) -> str:
    return format_metric(name, values[name]) if name in values else "–"


def format_metric(name: str, value: float) -> str:
    return f"{value:.2f}" if name.startswith("Pass") else f"{value:.3f}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int) -> str:
    align = ["---" if i < numeric_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
