"""What a reader sees in a patch set: its changed lines and the blocks it repeats."""

from __future__ import annotations

from collections import Counter


def changed_lines(diff: str) -> int:
    """Added and removed lines (file headers not counted)."""
    return sum(
        1 for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
    )


def added_blocks(diff: str) -> list[tuple[str, ...]]:
    """Each run of added lines, stripped, without blank and comment-only lines."""
    blocks: list[tuple[str, ...]] = []
    run: list[str] = []
    for line in [*diff.splitlines(), ""]:
        if line.startswith("+") and not line.startswith("+++"):
            text = line[1:].strip()
            if text and not text.startswith("#"):
                run.append(text)
            continue
        if run:
            blocks.append(tuple(run))
        run = []
    return blocks


def repeated_blocks(diff: str) -> int:
    """Copies of a block of two or more statements beyond its first (imports aside): the
    same code pasted into several places."""
    blocks = [
        b for b in added_blocks(diff)
        if len([s for s in b if not s.startswith(("import ", "from "))]) >= 2
    ]  # fmt: skip
    return sum(n - 1 for n in Counter(blocks).values() if n > 1)
