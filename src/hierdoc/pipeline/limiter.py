"""A concurrency limit for calls to a rate-limited API: halves on 429, creeps back up.

Waiters are served by priority, so the calls of an earlier document go before
those of a later one (see :mod:`.contextualize`).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

logger = logging.getLogger(__name__)

Priority = tuple[int, ...]


class AdaptiveLimiter:
    """A concurrency limit that halves on 429 and creeps back up, with prioritised waiters.

    Waiters are served lowest ``priority`` first (then first come), so the chunks
    of an earlier document go before those of a later one. ``acquire`` returns the
    limiter's generation at the time the slot was granted: a 429 halves the limit
    only if its request started after the last decrease, so a burst of 429s from
    requests that were in flight together counts once.
    """

    def __init__(self, maximum: int, recover_after: int = 10) -> None:
        if maximum < 1:
            raise ValueError("concurrency must be at least 1")
        self.maximum = maximum
        self.limit = maximum
        self.lowest = maximum
        self.recover_after = max(recover_after, 1)
        self.active = 0
        self.generation = 0
        self._streak = 0
        self._waiters: list[tuple[Priority, int, asyncio.Future[int]]] = []
        self._order = itertools.count()

    async def acquire(self, priority: Priority = ()) -> int:
        if self.active < self.limit and not self._live_waiters():
            self.active += 1
            return self.generation
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (priority, next(self._order), future))
        try:
            return await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release()  # granted just as it was cancelled: hand the slot on
            raise

    def release(self) -> None:
        self.active -= 1
        self._wake()

    @asynccontextmanager
    async def slot(self, priority: Priority = ()) -> AsyncIterator[int]:
        ticket = await self.acquire(priority)
        try:
            yield ticket
        finally:
            self.release()

    def on_rate_limit(self, ticket: int) -> None:
        self._streak = 0
        if ticket != self.generation:
            return
        self.generation += 1
        self.limit = max(1, self.limit // 2)
        self.lowest = min(self.lowest, self.limit)
        logger.info("rate limited: at most %d calls in flight", self.limit)

    def on_success(self) -> None:
        """One more call in flight after ``min(recover_after, limit)`` successes without a 429.

        Counting at most one round of the current limit (as TCP's additive
        increase does) climbs out of a limit of 1 or 2 after as many successes,
        instead of sitting there for ``recover_after`` calls at a time.
        """
        self._streak += 1
        if self._streak >= min(self.recover_after, self.limit) and self.limit < self.maximum:
            self._streak = 0
            self.limit += 1
            self._wake()

    def _live_waiters(self) -> bool:
        while self._waiters and self._waiters[0][2].done():
            heapq.heappop(self._waiters)
        return bool(self._waiters)

    def _wake(self) -> None:
        while self.active < self.limit and self._live_waiters():
            _, _, future = heapq.heappop(self._waiters)
            self.active += 1
            future.set_result(self.generation)
