"""Schemas register themselves by name; documents refer to them."""


class Registry:
    SCHEMAS = dict()


def schema(cls):
    Registry.SCHEMAS[cls.__name__] = cls
    return cls


def describe(body):
    """The document of a request body naming a schema."""
    if body not in Registry.SCHEMAS:
        raise KeyError(f"unknown schema {body}")
    return {"body": body, "fields": sorted(vars(Registry.SCHEMAS[body])["__annotations__"])}
