FORMATS = {}


def register(name, func):
    FORMATS[name] = func


def export(name, rows):
    return FORMATS[name](rows)


def register_builtins():
    register("csv", lambda rows: "\n".join(",".join(map(str, r)) for r in rows))
    register("tsv", lambda rows: "\n".join("\t".join(map(str, r)) for r in rows))
