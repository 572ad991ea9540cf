"""Plugins register themselves by subclassing :class:`Plugin`."""


class Plugin:
    """Base of every plugin: the registry is the live subclasses."""

    @classmethod
    def names(cls) -> list[str]:
        return sorted(c.__name__ for c in cls.__subclasses__())

    def parse(self, line: str) -> list[str]:
        raise NotImplementedError
