"""The evaluation of regression-testing algorithms as a plain-text table (``orderdep evaluate``)."""

from __future__ import annotations

from typing import Optional

from orderdep.analysis.regression.evaluate import Evaluation


def format_evaluation(evaluation: Evaluation) -> str:
    """A plain-text table: OD-test failures and slowdown per algorithm (Tables 8-9)."""
    headers = [
        "algorithm", "schedules", "changed", "added",
        "OD fail unenh", "OD fail enh", "reduction", "slowdown", "est. slowdown",
    ]  # fmt: skip
    rows = [
        [
            r.algorithm,
            str(r.schedules),
            str(r.changed),
            str(r.added),
            str(len(r.unenhanced_failures)),
            str(len(r.enhanced_failures)),
            _reduction(r.reduction),
            "=" if r.changed == 0 else _signed(r.slowdown),
            "=" if r.changed == 0 else _signed(r.estimated_slowdown),
        ]
        for r in evaluation.rows
    ]
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows]
    totals = evaluation.technique_totals()
    if totals:
        lines.append("")
        for technique, (u, e) in totals.items():
            red = _reduction(None if u == 0 else (u - e) / u)
            lines.append(f"{technique}: OD-test failures {u} -> {e} ({red} reduction)")
    return "\n".join(lines)


def _reduction(value: Optional[float]) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def _signed(value: Optional[float]) -> str:
    return "-" if value is None else f"{value * 100:+.1f}%"
