import itertools

_serial = itertools.count(1)
_instance = None


class ExportService:
    def __init__(self) -> None:
        self.serial = next(_serial)
        self.jobs: list[str] = []

    def submit(self, job: str) -> int:
        self.jobs.append(job)
        return len(self.jobs)


def get_instance() -> ExportService:
    global _instance
    if _instance is None:
        _instance = ExportService()
    return _instance
