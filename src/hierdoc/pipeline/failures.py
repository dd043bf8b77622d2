"""How ingest reads an error: what failed (a status, an outage, a refusal), whether one
document may be to blame, and the one redacted line a report shows for it."""

from __future__ import annotations

from ..errors import FatalProviderError, HierdocError
from ..providers.retry import Failure, classify, redact


def cause(error: BaseException) -> tuple[Failure, BaseException]:
    """How an error failed: its chain's first with a status or kind (providers wrap the SDK's
    errors ``from None``, which keeps them as ``__context__``)."""
    seen: BaseException | None = error
    for _ in range(10):  # a bound, in case a chain loops
        if seen is not None and (failure := classify(seen)).kind != "other":
            return failure, seen
        seen = seen and (seen.__cause__ or seen.__context__)
    return Failure("fatal" if isinstance(error, FatalProviderError) else "other"), error


def isolable(error: BaseException) -> bool:
    """Whether the error may be one document's doing: not an outage, not a refusal for good."""
    return cause(error)[0].kind in ("client", "other")


def reason(step: str, error: BaseException) -> str:
    """One redacted line: a hierdoc error's own message, else the step and the error's type."""
    text = str(error) if isinstance(error, HierdocError) else f"{type(error).__name__}: {error}"
    text = " ".join(text.split())
    return redact(step + (text[:297] + "..." if len(text) > 300 else text))
