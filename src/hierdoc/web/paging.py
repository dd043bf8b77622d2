"""Paging: every page that lists things shows one slice of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..errors import InputError

T = TypeVar("T")

MAX_PAGE = 1_000_000


def page_number(text: str | None, what: str = "page") -> int:
    """A page number from a query parameter (1 when absent); else an InputError."""
    if text is None or text == "":
        return 1
    if not text.isdigit() or not 1 <= int(text) <= MAX_PAGE:
        raise InputError(f"{what} is a whole number from 1 to {MAX_PAGE:,}, not {text[:40]!r}")
    return int(text)


@dataclass(frozen=True)
class Paged(Generic[T]):
    """One page of a listing: its items, its number (from 1), and the listing's size."""

    items: list[T]
    page: int
    size: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.size))

    @property
    def first(self) -> int:
        """The position (from 1) of the page's first item in the listing."""
        return (self.page - 1) * self.size + 1

    @property
    def has_previous(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.pages


def paged(items: Sequence[T], page: int, size: int) -> Paged[T]:
    """The ``page``-th slice of ``size`` items; a page past the end is an InputError."""
    total = len(items)
    last = max(1, -(-total // size))
    if page > last:
        raise InputError(f"page {page} is past the last page ({last})")
    start = (page - 1) * size
    return Paged(list(items[start : start + size]), page, size, total)


def page_of(position: int, size: int) -> int:
    """The page (from 1) that holds the item at ``position`` (from 0)."""
    return position // size + 1
