"""Readable sentences for how a root's value differs between two orders.

The probe describes each value as a bounded structure (:func:`.probe_values.describe`);
:func:`change_lines` diffs two of them into phrases such as ``has extra key 'job_7'``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from orderdep.analysis.repair.locate.value_view import ValueView

MAX_LISTED = 3
MAX_LINES = 4


def _render(desc: Any, limit: int = 60) -> str:
    """A short Python-like rendering of a description node."""
    text = _render_full(desc)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _render_full(desc: Any) -> str:
    if not isinstance(desc, list) or len(desc) != 3:
        return repr(desc)
    tag, tname, payload = desc
    if tag == "dict":
        return "{" + ", ".join(f"{k}: {_render_full(v)}" for k, v in payload) + "}"
    if tag == "seq":
        inner = ", ".join(_render_full(v) for v in payload)
        if tname == "tuple":
            return f"({inner},)" if len(payload) == 1 else f"({inner})"
        return f"[{inner}]"
    if tag == "set":
        return "{" + ", ".join(payload) + "}" if payload else "set()"
    if tag == "obj":
        return f"{tname}(" + ", ".join(f"{k}={_render_full(v)}" for k, v in payload) + ")"
    if tag in ("cycle",):
        return f"<cycle {tname}>"
    return str(payload)


def _listing(items: Sequence[str]) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    more = len(items) - MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _diff(f: Any, p: Any, path: str, out: list[tuple[str, str]]) -> None:
    """(sub-path, phrase) pairs saying how failing ``f`` differs from passing ``p``."""
    if f == p:
        return
    same_shape = (
        isinstance(f, list)
        and isinstance(p, list)
        and len(f) == len(p) == 3
        and f[0] == p[0]
        and f[1] == p[1]
    )
    if not same_shape or f[0] not in ("dict", "seq", "set", "obj"):
        out.append((path, f"is {_render(f)} (passing: {_render(p)})"))
        return
    tag = f[0]
    if tag in ("dict", "obj"):
        fd, pd = dict((k, v) for k, v in f[2]), dict((k, v) for k, v in p[2])
        word = "key" if tag == "dict" else "attribute"
        extra = [k for k in fd if k not in pd]
        missing = [k for k in pd if k not in fd]
        if extra:
            out.append((path, f"has extra {word}{'s' if len(extra) > 1 else ''} {_listing(extra)}"))
        if missing:
            out.append((path, f"lacks {word}{'s' if len(missing) > 1 else ''} {_listing(missing)}"))
        for k in fd:
            if k in pd and fd[k] != pd[k]:
                sub = f"{path}[{k}]" if tag == "dict" else f"{path}.{k}"
                _diff(fd[k], pd[k], sub, out)
        return
    if tag == "set":
        fs, ps = list(f[2]), list(p[2])
        extra = [x for x in fs if x not in ps]
        missing = [x for x in ps if x not in fs]
        if extra:
            out.append(
                (path, f"has extra element{'s' if len(extra) > 1 else ''} {_listing(extra)}")
            )
        if missing:
            out.append(
                (path, f"lacks element{'s' if len(missing) > 1 else ''} {_listing(missing)}")
            )
        return
    fl, pl = f[2], p[2]
    if len(fl) > len(pl) and fl[: len(pl)] == pl:
        items = [_render(x) for x in fl[len(pl) :]]
        out.append((path, f"has {_plural(len(items), 'extra item')} at the end: {_listing(items)}"))
    elif len(fl) < len(pl) and pl[: len(fl)] == fl:
        items = [_render(x) for x in pl[len(fl) :]]
        out.append((path, f"lacks its last {_plural(len(items), 'item')}: {_listing(items)}"))
    elif len(fl) == len(pl):
        for i, (a, b) in enumerate(zip(fl, pl)):
            _diff(a, b, f"{path}[{i}]", out)
    else:
        out.append((path, f"is {_render(f)} (passing: {_render(p)})"))


def change_lines(kind: str, failing: ValueView, passing: ValueView) -> list[str]:
    """Readable phrases for how a root's failing value differs from its passing value.

    Each phrase starts with the sub-path it is about (``['job_7']``, ``.count``, ``[2]``)
    when it concerns part of the value, e.g. ``has extra key 'job_7'``.
    """
    if failing.present and not passing.present:
        lit = failing.literal or _render(failing.desc)
        return [
            {
                "env": f"is set to {lit} (unset in the passing order)",
                "file": "was created (absent in the passing order)",
                "sysmodule": f"holds {_render(failing.desc)} (absent in the passing order)",
            }.get(kind, f"is {_render(failing.desc)} (absent in the passing order)")
        ]
    if passing.present and not failing.present:
        lit = passing.literal or _render(passing.desc)
        return [
            {
                "env": f"is unset (passing: {lit})",
                "file": "was deleted (present in the passing order)",
            }.get(kind, f"is absent (passing: {_render(passing.desc)})")
        ]
    if kind == "file":
        return [f"content differs ({_render(failing.desc)}; passing: {_render(passing.desc)})"]
    if kind == "cache":
        return [f"holds {failing.desc[2]} cached result(s) (passing: {passing.desc[2]})"]
    pairs: list[tuple[str, str]] = []
    _diff(failing.desc, passing.desc, "", pairs)
    if failing.type != passing.type and not pairs:
        pairs.append(("", f"is a {failing.type} (passing: a {passing.type})"))
    lines = [f"{sub}: {phrase}" if sub else phrase for sub, phrase in pairs]
    if len(lines) > MAX_LINES:
        lines = [*lines[: MAX_LINES - 1], f"and {len(lines) - MAX_LINES + 1} more difference(s)"]
    return lines
