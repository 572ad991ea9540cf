from exporters.registry import register


@register("csv")
class CsvExporter:
    suffix = ".csv"


@register("json")
class JsonExporter:
    suffix = ".json"
