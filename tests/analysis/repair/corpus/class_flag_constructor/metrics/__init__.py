"""Metric records; ``Series`` is configured once, by its first construction."""


class Series:
    __configured__ = False

    def __new__(cls, **kwargs):
        if not cls.__configured__:
            cls._name = kwargs.pop("name")
            cls._fields = list(kwargs.pop("fields"))
            if "time" in cls._fields:  # every record has a time anyway
                cls._fields.remove("time")
            cls.__configured__ = True
        return super().__new__(cls)

    def __init__(self, **kwargs):
        kwargs.pop("name", None)
        kwargs.pop("fields", None)
        self.values = {f: kwargs[f] for f in self._fields}
        self.time = kwargs.get("time", 0)

    def line(self):
        fields = ",".join(f"{k}={v}" for k, v in self.values.items())
        return f"{self._name} {fields} {self.time}"
