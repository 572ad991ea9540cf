PLUGINS = []


def plugin(func):
    PLUGINS.append(func)
    return func


@plugin
def builtin_upper(text):
    return text.upper()


def run_all(text):
    for p in PLUGINS:
        text = p(text)
    return text
