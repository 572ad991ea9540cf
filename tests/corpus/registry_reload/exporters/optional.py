from exporters.registry import register


@register("parquet")
class ParquetExporter:
    suffix = ".parquet"
