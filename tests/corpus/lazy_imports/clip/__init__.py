"""Clipboard helpers; ctypes is imported on first use only, to keep start-up fast."""


def copy(text: str) -> bytes:
    import ctypes

    buffer = ctypes.create_string_buffer(text.encode("utf-8"))
    return buffer.value
