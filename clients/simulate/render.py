"""What ``pyge simulate`` prints and draws: the text table (the default), the JSON
document (``--json``) and the plot of the delivered share over time (``--plot``).
"""
from __future__ import annotations

import json
from typing import Mapping, Sequence

from clients.simulate.metrics import HolderFigures, Report
from clients.simulate.png import BLACK, GREY, Canvas, Color, text_width

PALETTE: tuple[Color, ...] = ((31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40),
                              (148, 103, 189), (140, 86, 75), (227, 119, 194),
                              (127, 127, 127), (188, 189, 34), (23, 190, 207))
MAX_CURVES = len(PALETTE)


def duration(seconds: float) -> str:
    """``[Nd ]h:mm:ss``."""
    whole = int(round(seconds))
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{days}d {clock}" if days else clock


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def text(report: Report) -> str:
    lines = [f"simulated {report.jobs} jobs on {report.capacity} slots: makespan "
             f"{duration(report.makespan)}, {report.passes} dispatch passes",
             f"measured {_window(report)}: utilisation {_percent(report.utilisation)}"]
    if report.never_started:
        lines.append(f"{report.never_started} jobs never started (no queue instance "
                     "could ever take them)")
    if report.skipped:
        lines.append("left out of the workload: " + ", ".join(
            f"{n} {why}" for why, n in sorted(report.skipped.items())))
    lines.append(f"target shares: {report.target_source}")
    for title, rows in (("USER", report.users), ("PROJECT", report.projects),
                        ("JOB_WIDTH", report.widths)):
        if rows:
            lines.append("")
            lines.extend(_table(title, rows))
    return "\n".join(lines) + "\n"


def _window(report: Report) -> str:
    if report.window >= report.makespan:  # everything was submitted at once
        return "over the whole run"
    return f"until the last submission ({duration(report.window)})"


def _table(title: str, rows: Sequence[HolderFigures]) -> list[str]:
    width = max([len(title)] + [len(r.name) for r in rows])
    out = [f"{title:<{width}} {'JOBS':>7} {'SLOT_HOURS':>11} {'DELIVERED':>9} "
           f"{'TARGET':>8} {'MEAN_WAIT':>12} {'MAX_WAIT':>12} {'SLOWDOWN':>9}"]
    for r in rows:
        out.append(f"{r.name:<{width}} {r.jobs:>7} {r.slot_seconds / 3600:>11.1f} "
                   f"{_percent(r.delivered):>9} {_percent(r.target):>8} "
                   f"{duration(r.mean_wait):>12} {duration(r.max_wait):>12} "
                   f"{r.mean_slowdown:>9.2f}")
    return out


def as_json(report: Report, over_time: tuple[list[float], Mapping[str, list[float]]]
            | None = None) -> str:
    doc = report.as_dict()
    if over_time is not None:
        times, series = over_time
        doc["share_over_time"] = {"times": times, "users": dict(series)}
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


# ---- the plot ------------------------------------------------------------------------

def plot(times: Sequence[float], series: Mapping[str, Sequence[float]],
         targets: Mapping[str, float | None] | None = None, *,
         last_submission: float | None = None, width: int = 900, height: int = 500
         ) -> Canvas:
    """Delivered share over time per user (the ``MAX_CURVES`` users with the most slot
    time at the end; the others are summed as "others"), each user's target a dashed
    line of its colour; a dashed grey line where the last job was submitted (the
    measured window's end: afterwards the cell drains its backlog)."""
    canvas = Canvas(width, height)
    left, right, top, bottom = 60, 190, 30, 45
    x0, x1, y0, y1 = left, width - right, height - bottom, top
    end = times[-1] if times else 1.0
    canvas.text(left, 8, "delivered share of slot time", BLACK, 2)

    def px(t: float) -> int:
        return x0 + round((x1 - x0) * t / end) if end else x0

    def py(share: float) -> int:
        return y0 - round((y0 - y1) * min(max(share, 0.0), 1.0))

    for k in range(5):  # horizontal grid and the share axis: 0, 25, 50, 75, 100 %
        y = py(k / 4)
        canvas.line(x0, y, x1, y, GREY)
        label = f"{25 * k}%"
        canvas.text(x0 - 6 - text_width(label), y - 3, label)
    unit, name = (86400.0, "d") if end >= 2 * 86400 else (3600.0, "h")
    for k in range(6):  # the time axis
        t = end * k / 5
        x = px(t)
        canvas.line(x, y0, x, y0 + 4, BLACK)
        label = f"{t / unit:.1f}{name}"
        canvas.text(x - text_width(label) // 2, y0 + 8, label)
    if last_submission is not None and 0 < last_submission < end:
        x = px(last_submission)
        canvas.line(x, y0, x, y1, GREY, dash=4)
        canvas.text(x + 4, y1 + 4, "last submission", (120, 120, 120))
    canvas.line(x0, y0, x1, y0, BLACK)
    canvas.line(x0, y0, x0, y1, BLACK)
    canvas.text((x0 + x1) // 2 - text_width("time") // 2, height - 14, "time")
    for n, (user, values) in enumerate(_curves(series)):
        color = PALETTE[n % len(PALETTE)]
        target = (targets or {}).get(user)
        if target is not None:
            canvas.line(x0, py(target), x1, py(target), color, dash=6)
        points = [(px(t), py(v)) for t, v in zip(times, values)]
        for (ax, ay), (bx, by) in zip(points, points[1:]):
            canvas.line(ax, ay, bx, by, color, width=2)
        ly = top + 14 * n
        canvas.rect(x1 + 15, ly, 10, 7, color)
        legend = user if target is None else f"{user} ({100 * target:.0f}%)"
        canvas.text(x1 + 30, ly, legend[:26])
    return canvas


def _curves(series: Mapping[str, Sequence[float]]) -> list[tuple[str, list[float]]]:
    ranked = sorted(series, key=lambda u: (-(series[u][-1] if series[u] else 0.0), u))
    shown = [(u, list(series[u])) for u in ranked[:MAX_CURVES - 1]]
    rest = ranked[MAX_CURVES - 1:]
    if len(rest) == 1:
        shown.append((rest[0], list(series[rest[0]])))
    elif rest:
        summed = [sum(vals) for vals in zip(*(series[u] for u in rest))]
        shown.append((f"others ({len(rest)})", summed))
    return shown
