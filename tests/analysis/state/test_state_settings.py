"""Settings behind a getter and a setter as roots: fingerprinted through the getter only
when their module is imported, captured and put back through the setter."""

from __future__ import annotations

import socket
import sys

import pytest

from orderdep.analysis.state import settings, values
from orderdep.analysis.state.process_roots import ProcessRoots
from orderdep.analysis.state.settings import Setting, current, setting_of

TIMEOUT = "setting:socket.defaulttimeout"


def _fingerprints() -> dict[str, int]:
    out: dict[str, int] = {}
    ProcessRoots(frozenset()).fingerprint(out)
    return out


def test_a_setting_changed_changes_its_fingerprint_and_is_put_back() -> None:
    before = _fingerprints()
    assert TIMEOUT in before and "setting:sys.recursionlimit" in before
    saved = values.get(TIMEOUT)
    try:
        socket.setdefaulttimeout(4.5)
        after = _fingerprints()
        assert after[TIMEOUT] != before[TIMEOUT]
        assert values.describe(TIMEOUT) == "4.5"
        values.restore(TIMEOUT, saved)
        assert _fingerprints()[TIMEOUT] == before[TIMEOUT]
    finally:
        socket.setdefaulttimeout(saved.content)


def test_a_library_not_imported_is_not_watched_nor_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    absent = Setting("nowhere.option", "orderdep_no_such_module", "get", "set", False)
    monkeypatch.setattr(settings, "SETTINGS", (*settings.SETTINGS, absent))
    assert current(absent) == (False, None)
    assert absent.root not in _fingerprints()
    assert "orderdep_no_such_module" not in sys.modules


def test_patches_use_the_library_calls() -> None:
    options = setting_of("setting:numpy.printoptions")
    assert options is not None and setting_of("numpy.printoptions") is None
    assert options.set_call("np", "saved") == "np.set_printoptions(**saved)"
    assert options.put_back_later("np") == (
        "request.addfinalizer(functools.partial(np.set_printoptions, **np.get_printoptions()))"
    )


def test_the_start_method_is_read_without_fixing_it_and_put_back_by_force() -> None:
    import multiprocessing

    method = "setting:multiprocessing.start_method"
    before = multiprocessing.get_start_method(allow_none=True)
    multiprocessing.set_start_method(None, force=True)
    try:
        saved = values.get(method)
        assert saved.present and saved.content is None  # reading it did not fix one
        assert multiprocessing.get_start_method(allow_none=True) is None
        multiprocessing.set_start_method("spawn")
        assert _fingerprints()[method] != settings.value_fingerprint(None)
        values.restore(method, saved)
        assert multiprocessing.get_start_method(allow_none=True) is None
    finally:
        multiprocessing.set_start_method(before, force=True)
    start = setting_of(method)
    assert start is not None
    assert start.put_back_later("multiprocessing") == (
        "request.addfinalizer(functools.partial(multiprocessing.set_start_method, "
        "multiprocessing.get_start_method(allow_none=True), force=True))"
    )
    assert start.set_call("mp", "'fork'") == "mp.set_start_method('fork', force=True)"
