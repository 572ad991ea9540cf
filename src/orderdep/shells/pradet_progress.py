"""What ``orderdep pradet`` shows while it refines: a bar on a terminal, phase lines
otherwise (on stderr)."""

from __future__ import annotations

from typing import Optional

from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from orderdep.analysis.pradet.refine import RefineProgress
from orderdep.shells.output import stderr_console


class PradetProgress:
    """Refinement progress on stderr: a bar on a terminal, phase lines otherwise."""

    def __init__(self) -> None:
        self.console = stderr_console()
        self.bar = Progress(
            TextColumn("refining"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} data deps, {task.fields[found]} manifest"),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
            disable=not self.console.is_terminal,
        )
        self.task: Optional[TaskID] = None

    def __enter__(self) -> PradetProgress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def notice(self, message: str) -> None:
        self.task = None
        self.console.print(f"orderdep: {message}", soft_wrap=True, highlight=False, markup=False)

    def update(self, p: RefineProgress) -> None:
        if self.task is None:
            self.task = self.bar.add_task("refine", total=p.total, found=p.manifest)
        self.bar.update(self.task, completed=p.tested, total=p.total, found=p.manifest)
