"""A tiny s-expression reader: each element class declares its tag and fields."""

import re


class Element:
    """Base of every element; subclasses set ``tag`` and may set ``fields``."""

    @classmethod
    def grammar(cls):
        fields = getattr(cls, "fields", ())
        return re.compile(rf"\({cls.tag}((?: \S+){{{len(fields)}}})\)")

    @classmethod
    def parse(cls, text):
        # the compiled grammar is cached on the class the first time it is needed
        if not hasattr(cls, "_grammar"):
            cls._grammar = cls.grammar()
        match = cls._grammar.fullmatch(text)
        if match is None:
            raise ValueError(f"not a {cls.tag}: {text!r}")
        return dict(zip(getattr(cls, "fields", ()), match.group(1).split()))

    @classmethod
    def from_schema(cls, tag, fields):
        """Only for tests: parse ad-hoc elements with the base class."""
        cls.tag = tag
        cls.fields = fields
        cls._grammar = cls.grammar()
        return cls


class Pad(Element):
    tag = "pad"
    fields = ("number", "shape")


class Layer(Element):
    tag = "layer"
    fields = ("name",)


class Marker(Element):
    """An element without fields: ``(marker)``."""

    tag = "marker"
