"""State-setting statements rewritten through monkeypatch (the change ends with the test)."""

from __future__ import annotations

from orderdep.analysis.repair.candidates.scoping import scope_statements
from orderdep.analysis.repair.verify.patchset import function_id


def test_shared_writes_go_through_monkeypatch_and_locals_stay() -> None:
    stmts = [
        'os.environ["HOME_DIR"] = "/srv"',
        "del os.environ['TZ']",
        "config.Settings.debug = True",
        "sys.argv = ['tool', '-v']",
        "REGISTRY['csv'] = write_csv",
        "os.chdir(path)",
        "data = {}",
        "data['a'] = 1",
        "self.value = 2",
        "exporters.register_builtins()",
    ]
    scoped, changed = scope_statements(stmts)
    assert changed
    assert scoped == [
        "monkeypatch.setenv('HOME_DIR', '/srv')",
        "monkeypatch.delenv('TZ', raising=False)",
        "monkeypatch.setattr(config.Settings, 'debug', True)",
        "monkeypatch.setattr(sys, 'argv', ['tool', '-v'])",
        "monkeypatch.setitem(REGISTRY, 'csv', write_csv)",
        "monkeypatch.chdir(path)",
        "data = {}",
        "data['a'] = 1",
        "self.value = 2",
        "exporters.register_builtins()",
    ]
    assert scope_statements(["x = 1", "f()"]) == (["x = 1", "f()"], False)
    # a slice has no key monkeypatch could set: left as it is
    assert scope_statements(["Breathe.contexts[:] = []"]) == (["Breathe.contexts[:] = []"], False)


def test_parametrized_instances_share_their_functions_id() -> None:
    assert function_id("tests/t.py::test_a[x-1]") == "tests/t.py::test_a"
    assert function_id("tests/t.py::C::test_a[a::b]") == "tests/t.py::C::test_a"
    assert function_id("tests/t.py::test_b") == "tests/t.py::test_b"
