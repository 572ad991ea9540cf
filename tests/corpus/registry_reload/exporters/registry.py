from typing import Callable, TypeVar

T = TypeVar("T", bound=type)

REGISTRY: dict[str, type] = {}


def register(name: str) -> Callable[[T], T]:
    def decorate(cls: T) -> T:
        if name in REGISTRY and REGISTRY[name] is not cls:
            raise ValueError(f"exporter {name!r} is already registered")
        REGISTRY[name] = cls
        return cls

    return decorate


def get(name: str) -> type:
    try:
        return REGISTRY[name]
    except KeyError:
        raise LookupError(f"no exporter {name!r}; known: {sorted(REGISTRY)}") from None
