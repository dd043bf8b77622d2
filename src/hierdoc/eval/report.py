"""The report of an evaluation run: per-method results, the indexes used, the table.

:meth:`EvalReport.table` is the markdown printed by ``hierdoc eval``;
:meth:`EvalReport.to_dict` is its JSON, per-query misses included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


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


def _figure(name: str, values: dict[str, float]) -> str:
    return format_metric(name, values[name]) if name in values else "–"


def format_metric(name: str, value: float) -> str:
    return f"{value:.2f}" if name.startswith("Pass") else f"{value:.3f}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int) -> str:
    align = ["---" if i < numeric_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
