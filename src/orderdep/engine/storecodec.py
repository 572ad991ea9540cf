"""The results store's compact encoding of an order and its outcomes.

Each test id is stored once in the store (its ``tests`` table, an integer per id); an
order is the zlib-compressed array of those integers, and its results one compressed
block: the outcome of each position as one byte, the duration in whole microseconds
(what the JSON form rounded to), the failure messages of the positions that have one,
and the results' test integers only when they are not the order's own positions (an
interrupted order, say). A random order of a 2,000-test suite takes about 18 KB instead
of about 400 KB of JSON (``benchmarks/bench_store.py``, figures in docs/benchmarks.md).
"""

from __future__ import annotations

import json
import struct
import zlib
from array import array
from collections.abc import Sequence

from orderdep.core.outcomes import Outcome, TestResult

#: Outcome <-> one byte. Append only: stored blocks keep their meaning.
OUTCOME_CODES: tuple[Outcome, ...] = (
    Outcome.PASSED,
    Outcome.FAILED,
    Outcome.ERROR,
    Outcome.SKIPPED,
    Outcome.XFAILED,
    Outcome.XPASSED,
    Outcome.TIMEOUT,
    Outcome.CRASHED,
    Outcome.NOT_RUN,
)
_CODE = {o: i for i, o in enumerate(OUTCOME_CODES)}
# Header of a results block: positions, and whether their tests are the order's.
_HEADER = struct.Struct("<IB")
LEVEL = 6


def _ints(values: Sequence[int]) -> bytes:
    return array("I", values).tobytes()


def _unints(data: bytes) -> list[int]:
    out = array("I")
    out.frombytes(data)
    return out.tolist()


def encode_order(numbers: Sequence[int]) -> bytes:
    """An order as the test integers of its positions."""
    return zlib.compress(_ints(numbers), LEVEL)


def decode_order(blob: bytes) -> list[int]:
    return _unints(zlib.decompress(blob))


def encode_results(
    results: Sequence[TestResult], numbers: Sequence[int], order_numbers: Sequence[int]
) -> bytes:
    """``results`` (their tests as ``numbers``) of the order whose tests are
    ``order_numbers``."""
    n = len(results)
    same = list(numbers) == list(order_numbers[:n])
    micros = array("q", (round(r.duration * 1_000_000) for r in results)).tobytes()
    messages = {str(i): r.message for i, r in enumerate(results) if r.message}
    parts = [
        _HEADER.pack(n, 1 if same else 0),
        bytes(_CODE[r.outcome] for r in results),
        micros,
        b"" if same else _ints(numbers),
        json.dumps(messages, ensure_ascii=False, separators=(",", ":")).encode(),
    ]
    return zlib.compress(b"".join(parts), LEVEL)


def decode_results(
    blob: bytes, order_numbers: Sequence[int], name: Sequence[str] | dict[int, str]
) -> list[TestResult]:
    """The results encoded by :func:`encode_results`; ``name[number]`` is a test id."""
    data = zlib.decompress(blob)
    n, same = _HEADER.unpack_from(data)
    at = _HEADER.size
    codes = data[at : at + n]
    at += n
    micros = array("q")
    micros.frombytes(data[at : at + 8 * n])
    at += 8 * n
    if same:
        numbers = list(order_numbers[:n])
    else:
        numbers = _unints(data[at : at + 4 * n])
        at += 4 * n
    messages: dict[str, str] = json.loads(data[at:].decode())
    return [
        TestResult(
            test=name[numbers[i]],
            outcome=OUTCOME_CODES[codes[i]],
            duration=micros[i] / 1_000_000,
            message=messages.get(str(i), ""),
        )
        for i in range(n)
    ]
