from cfgparse import errors


def parse_line(line):
    if "=" not in line:
        raise errors.ConfigError(f"no '=' in {line!r}")
    key, value = line.split("=", 1)
    return key.strip(), value.strip()
