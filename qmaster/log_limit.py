"""Rate-limited logging for the qmaster: lines a user can cause must not fill the disk
or hold up the loop (issue 26). One user's flood of refused frames, of requests that
fail, of waits or submissions each writes a line; past a burst, the lines of one event
are counted instead of written, and the next line of it that is let through says how
many were left out (``suppressed``).

``Limiter`` is pure (the time comes in); ``LimitedLog`` wraps the daemon's structlog
logger with it and the monotonic clock.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

# lines of one event (level and name) let through at once, and again per second after
BURST = 50
PER_SECOND = 10.0


@dataclass
class _Bucket:
    tokens: float
    stamp: float
    suppressed: int = 0


@dataclass
class Limiter:
    """A token bucket per key: ``burst`` lines at once, ``rate`` more per second."""

    burst: int = BURST
    rate: float = PER_SECOND
    buckets: dict[Any, _Bucket] = field(default_factory=dict)

    def admit(self, key: Any, now: float) -> int | None:
        """None: drop this line (counted); else let it through, with how many lines of
        the key were dropped since the last one let through."""
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = _Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst),
                            bucket.tokens + (now - bucket.stamp) * self.rate)
        bucket.stamp = now
        if bucket.tokens < 1.0:
            bucket.suppressed += 1
            return None
        bucket.tokens -= 1.0
        dropped, bucket.suppressed = bucket.suppressed, 0
        return dropped


class LimitedLog:
    """A logger's ``info``, ``warning`` and ``error``, each event name rate-limited."""

    def __init__(self, log: Any, limiter: Limiter | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._log, self._limiter, self._clock = log, limiter or Limiter(), clock

    def _emit(self, level: str, event: str, fields: dict[str, Any]) -> None:
        dropped = self._limiter.admit((level, event), self._clock())
        if dropped is None:
            return
        if dropped:
            fields = {**fields, "suppressed": dropped}
        getattr(self._log, level)(event, **fields)

    def info(self, event: str, **fields: Any) -> None:
        self._emit("info", event, fields)

    def warning(self, event: str, **fields: Any) -> None:
        self._emit("warning", event, fields)

    def error(self, event: str, **fields: Any) -> None:
        self._emit("error", event, fields)

    def __getattr__(self, name: str) -> Any:  # bind, debug, ...: the logger's own
        return getattr(self._log, name)
