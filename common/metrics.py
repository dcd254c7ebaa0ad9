"""Metric families and their exposition: the Prometheus text format 0.0.4 and OpenMetrics 1.0.

Pure: a family is data (name, kind, help, samples), ``Histogram`` and ``CounterVec``
accumulate what a daemon observes, and ``render`` turns families into the text a scraper
reads. No clock, no socket (qmaster.metrics serves it).

Names follow Prometheus' conventions: a ``pyge_`` prefix, base units (``_seconds``), a
counter's samples end in ``_total``, a histogram has ``_bucket{le=...}``, ``_sum`` and
``_count``. Label values are escaped as both formats require (backslash, quote, newline).
"""
from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

COUNTER, GAUGE, HISTOGRAM = "counter", "gauge", "histogram"
PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8"
OPENMETRICS_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8"

_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")

Labels = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Sample:
    """One value of a family: ``suffix`` is appended to the family's name (``_bucket``,
    ``_sum``, ``_count``, ``_total``, or nothing)."""

    suffix: str
    labels: Labels
    value: float


@dataclass(frozen=True)
class Family:
    name: str  # without _total for a counter
    kind: str  # COUNTER, GAUGE or HISTOGRAM
    help: str
    samples: tuple[Sample, ...] = ()

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name) or self.name.endswith("_total"):
            raise ValueError(f"bad metric name {self.name!r}")
        if self.kind not in (COUNTER, GAUGE, HISTOGRAM):
            raise ValueError(f"bad metric kind {self.kind!r}")
        for sample in self.samples:
            for label, _ in sample.labels:
                if not _LABEL.fullmatch(label) or label.startswith("__"):
                    raise ValueError(f"bad label name {label!r}")


def labels(**pairs: str) -> Labels:
    """Label pairs in a stable order."""
    return tuple(sorted((k, str(v)) for k, v in pairs.items()))


def gauge(name: str, help_text: str, values: Mapping[Labels, float]) -> Family:
    return Family(name, GAUGE, help_text,
                  tuple(Sample("", key, float(v)) for key, v in sorted(values.items())))


def counter(name: str, help_text: str, values: Mapping[Labels, float]) -> Family:
    return Family(name, COUNTER, help_text,
                  tuple(Sample("_total", key, float(v)) for key, v in sorted(values.items())))


@dataclass
class CounterVec:
    """Counts by label set, bounded: at most ``max_series`` label sets are kept, any other
    is counted under ``overflow`` (a peer choosing label values cannot grow it)."""

    max_series: int = 256
    overflow: Labels = (("type", "other"),)
    values: dict[Labels, float] = field(default_factory=dict)

    def inc(self, key: Labels, amount: float = 1.0) -> None:
        if key not in self.values and len(self.values) >= self.max_series:
            key = self.overflow
        self.values[key] = self.values.get(key, 0.0) + amount


@dataclass
class Histogram:
    """Observations in cumulative buckets (upper bounds, ascending; +Inf is implied)."""

    bounds: Sequence[float]
    counts: list[int] = field(init=False)
    total: float = 0.0
    count: int = 0

    def __post_init__(self) -> None:
        if list(self.bounds) != sorted(set(self.bounds)) or any(
                not math.isfinite(b) for b in self.bounds):
            raise ValueError("histogram bounds must be finite and ascending")
        self.counts = [0] * (len(self.bounds) + 1)

    def observe(self, value: float) -> None:
        if not math.isfinite(value):
            return
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.total += value
        self.count += 1

    def family(self, name: str, help_text: str) -> Family:
        samples, running = [], 0
        for bound, n in zip(list(self.bounds) + [math.inf], self.counts):
            running += n
            samples.append(Sample("_bucket", (("le", _bound(bound)),), float(running)))
        samples += [Sample("_sum", (), self.total), Sample("_count", (), float(self.count))]
        return Family(name, HISTOGRAM, help_text, tuple(samples))


# seconds, from a millisecond to ten minutes: dispatch latency, pass and commit times
TIME_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                10.0, 30.0, 60.0, 300.0, 600.0)


def render(families: Iterable[Family], *, openmetrics: bool) -> str:
    """The exposition of ``families``: OpenMetrics 1.0 (ends in ``# EOF``) or the
    Prometheus text format 0.0.4 (a counter's TYPE line names its ``_total`` series)."""
    lines: list[str] = []
    for fam in families:
        head = fam.name if openmetrics or fam.kind != COUNTER else fam.name + "_total"
        lines.append(f"# HELP {head} {_escape_help(fam.help)}")
        lines.append(f"# TYPE {head} {fam.kind}")
        for sample in fam.samples:
            lines.append(f"{fam.name}{sample.suffix}{_label_text(sample.labels)} "
                         f"{_number(sample.value)}")
    if openmetrics:
        lines.append("# EOF")
    return "\n".join(lines) + "\n"


def wants_openmetrics(accept: str) -> bool:
    """Whether an HTTP ``Accept`` header asks for OpenMetrics (as Prometheus does)."""
    return "application/openmetrics-text" in accept.lower()


def _label_text(pairs: Labels) -> str:
    if not pairs:
        return ""
    return "{" + ",".join(f'{k}="{_escape_value(v)}"' for k, v in pairs) + "}"


def _escape_value(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


def _bound(value: float) -> str:
    """A bucket's ``le``: always with a fraction (``1.0``) or ``+Inf``, as clients write it."""
    return "+Inf" if math.isinf(value) else repr(float(value))
