"""Independent filler tests of a generated suite: plain passing tests of pure helpers.

They only call ``app.text``, ``app.money`` and ``app.listutil``, which hold no state; their
expected values come from running those very sources, so a filler cannot disagree with the
code it tests.
"""

from __future__ import annotations

import json
import random
from typing import Any, Callable

from orderdep.synth.appcode import LISTUTIL, MONEY, TEXT
from orderdep.synth.planting import TestCase

_WORDS = (
    "alpha", "bravo", "delta", "echo", "golf", "hotel", "india", "kilo", "lima", "mike",
    "oscar", "papa", "quebec", "romeo", "sierra", "tango", "victor", "whiskey", "yankee", "zulu",
)  # fmt: skip


def _helpers() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, source in (("text", TEXT), ("money", MONEY), ("listutil", LISTUTIL)):
        namespace: dict[str, Any] = {"__name__": f"app.{name}"}
        exec(compile(source, f"app/{name}.py", "exec"), namespace)
        out[name] = namespace
    return out


_HELPERS = _helpers()
Filler = Callable[[random.Random], TestCase]


def _call(module: str, func: str, *args: Any) -> Any:
    return _HELPERS[module][func](*args)


def _lit(value: Any) -> str:
    """A Python literal for ``value`` with double-quoted strings, as formatters write them."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_lit(v) for v in value) + "]"
    return repr(value)


def _filler(module: str, name: str, expr: str, expected: Any) -> TestCase:
    expected_lit = _lit(expected)
    return TestCase(
        name=name,
        body=(
            f"assert {module}.{expr} == {expected_lit}"
            if len(expr) + len(expected_lit) < 56
            else f"result = {module}.{expr}\nassert result == {expected_lit}"
        ),
        imports=frozenset({f"from app import {module}"}),
    )


def _slugify(rng: random.Random) -> TestCase:
    words = rng.sample(_WORDS, rng.randint(2, 3))
    value = rng.choice((" ", ", ", " - ", "_")).join(w.title() for w in words)
    expected = _call("text", "slugify", value)
    return _filler("text", f"test_slugify_{'_'.join(words)}", f"slugify({_lit(value)})", expected)


def _truncate(rng: random.Random) -> TestCase:
    value = " ".join(rng.sample(_WORDS, 3))
    width = rng.randint(6, len(value) + 2)
    expected = _call("text", "truncate", value, width)
    return _filler(
        "text", f"test_truncate_to_{width}", f"truncate({_lit(value)}, {width})", expected
    )


def _initials(rng: random.Random) -> TestCase:
    words = rng.sample(_WORDS, 2)
    value = " ".join(w.title() for w in words)
    expected = _call("text", "initials", value)
    return _filler("text", f"test_initials_of_{words[0]}", f"initials({_lit(value)})", expected)


def _format_cents(rng: random.Random) -> TestCase:
    cents = rng.randint(-99_999, 99_999)
    currency = rng.choice(("EUR", "USD", "GBP"))
    expected = _call("money", "format_cents", cents, currency)
    sign = "minus_" if cents < 0 else ""
    name = f"test_format_{sign}{abs(cents)}_{currency.lower()}"
    return _filler("money", name, f"format_cents({cents}, {_lit(currency)})", expected)


def _parse_amount(rng: random.Random) -> TestCase:
    text = f"{rng.randint(0, 999)}.{rng.randint(0, 99):02d}"
    expected = _call("money", "parse_amount", text)
    name = f"test_parse_amount_{text.replace('.', '_')}"
    return _filler("money", name, f"parse_amount({_lit(text)})", expected)


def _percent_of(rng: random.Random) -> TestCase:
    cents, percent = rng.randint(1, 50_000), rng.choice((5, 10, 15, 20, 25, 33))
    expected = _call("money", "percent_of", cents, percent)
    name = f"test_{percent}_percent_of_{cents}"
    return _filler("money", name, f"percent_of({cents}, {percent})", expected)


def _chunked(rng: random.Random) -> TestCase:
    n, size = rng.randint(0, 12), rng.randint(1, 5)
    expected = _call("listutil", "chunked", list(range(n)), size)
    name = f"test_chunk_{n}_items_by_{size}"
    return _filler("listutil", name, f"chunked(list(range({n})), {size})", expected)


def _dedupe(rng: random.Random) -> TestCase:
    items = [rng.choice(_WORDS[:5]) for _ in range(rng.randint(3, 5))]
    expected = _call("listutil", "dedupe", items)
    return _filler(
        "listutil", f"test_dedupe_{len(items)}_words", f"dedupe({_lit(items)})", expected
    )


def _flatten(rng: random.Random) -> TestCase:
    groups = [list(range(rng.randint(0, 3))) for _ in range(rng.randint(1, 4))]
    expected = _call("listutil", "flatten", groups)
    name = f"test_flatten_{len(groups)}_groups"
    return _filler("listutil", name, f"flatten({_lit(groups)})", expected)


FILLERS: tuple[Filler, ...] = (
    _slugify,
    _truncate,
    _initials,
    _format_cents,
    _parse_amount,
    _percent_of,
    _chunked,
    _dedupe,
    _flatten,
)


def filler_test(rng: random.Random) -> TestCase:
    """One independent passing test of a pure helper."""
    return rng.choice(FILLERS)(rng)
