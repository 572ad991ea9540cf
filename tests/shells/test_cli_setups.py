"""Projects set up the way their users do: a ``src/`` layout on the path, editable installs
(a ``.pth`` path, setuptools' editable finder, hatchling), a non-editable install, and
orderdep in another environment than the project's. In each, ``detect``, ``pradet`` and
``fix --apply`` give what a flat project gives, and the patch holds under plain pytest."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import pytest
from clitools import write_files

from orderdep.analysis.regression.coverage import _PROBE_MODULE as COVERAGE_PROBE
from orderdep.analysis.repair.locate.debugger import PROBE_MODULE as DEBUG_PROBE
from orderdep.analysis.state.probe import MODULE as STATE_PROBE
from orderdep.engine.config import MIN_PYTHON
from orderdep.engine.shim import with_shim

if TYPE_CHECKING:
    from conftest import CliRunner

VICTIM = "tests/test_shop.py::test_list_price"
POLLUTER = "tests/test_shop.py::test_add_discount"
SHOP = """
    _DISCOUNTS = {}

    def add_discount(name, pct):
        _DISCOUNTS[name] = pct

    def price(base):
        return base * (100 - sum(_DISCOUNTS.values())) / 100
"""
TESTS = """
    import shop

    def test_add_discount():
        shop.add_discount("summer", 10)
        assert shop.price(100) == 90

    def test_list_price():
        assert shop.price(100) == 100
"""
SETUPTOOLS = """
    [build-system]
    requires = ["setuptools>=61"]
    build-backend = "setuptools.build_meta"

    [project]
    name = "shop"
    version = "0.1"
"""
SRC_LAYOUT = '\n[tool.setuptools.packages.find]\nwhere = ["src"]\n'
# The package directory does not match the import name: setuptools installs an editable
# finder (an import hook) instead of a path in a .pth file.
FINDER_LAYOUT = (
    '\n[tool.setuptools]\npackages = ["shop"]\npackage-dir = {"shop" = "lib/shopcode"}\n'
)
# A namespace package (no __init__.py in acme/) whose portion holds the code.
NAMESPACE_LAYOUT = '\n[tool.setuptools.packages.find]\nwhere = ["src"]\nnamespaces = true\n'
NAMESPACE_TESTS = TESTS.replace("import shop", "from acme import shop")
HATCHLING = """
    [build-system]
    requires = ["hatchling"]
    build-backend = "hatchling.build"

    [project]
    name = "shop"
    version = "0.1"

    [tool.hatch.build.targets.wheel]
    packages = ["src/shop"]
"""


def shop_project(root: Path, pyproject: str, package_dir: str = "src/shop") -> Path:
    tests = NAMESPACE_TESTS if package_dir.startswith("src/acme/") else TESTS
    return write_files(
        root,
        {
            "pyproject.toml": pyproject,
            f"{package_dir}/__init__.py": SHOP,
            "tests/test_shop.py": tests,
        },
    )


def plain_pytest(python: str, project: Path, *order: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *order],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )


def check_repairs(
    cli: CliRunner, project: Path, python: str, *extra: str, module: str = "shop"
) -> None:
    """detect finds the victim, pradet its dependency, and fix --apply a patch that holds
    under plain pytest with this interpreter."""
    assert plain_pytest(python, project, POLLUTER, VICTIM).returncode == 1  # as set up
    code, out, err = cli("detect", project, *extra, "--seed", "1")
    assert code == 1 and VICTIM in out, out + err
    code, out, err = cli("pradet", project, *extra)
    assert code == 1, out + err
    assert f"{VICTIM}  fails after  {POLLUTER}  via {module}._DISCOUNTS" in out
    code, out, err = cli(
        "fix", project, *extra, "--test", VICTIM, "--polluter", POLLUTER, "--apply"
    )
    assert code == 0, out + err
    assert f"{module}._DISCOUNTS" in out
    held = plain_pytest(python, project, POLLUTER, VICTIM)
    assert held.returncode == 0, held.stdout + held.stderr


@pytest.mark.parametrize("plugin", [(), ("--pytest-arg=-pshop",)], ids=["", "imported-by-a-plugin"])
def test_a_src_layout_on_the_path_is_repaired_in_the_working_copy(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugin: tuple[str, ...]
) -> None:
    """``ORIGIN/src`` on the path (as a ``.pth`` file or PYTHONPATH puts it) would import
    the original tree in the workers; they import the copy's, so state capture, PRADET
    and the debugger see the package and a patch verified in the copy is what runs; also
    when the user's ``-p`` loads the package as a plugin before any test."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    project = shop_project(tmp_path / "shop", SETUPTOOLS + SRC_LAYOUT)
    monkeypatch.setenv("PYTHONPATH", str(project / "src"))
    code, _, err = cli("run", project, *plugin, VICTIM)
    assert code == 0, err
    assert "imported from its own tree" not in err and "non-editable" not in err
    check_repairs(cli, project, sys.executable, *plugin)


def make_venv(where: Path, project: Path, *install: str, base: str = sys.executable) -> str:
    """A venv of ``base`` with pytest and the project installed as ``install`` says (not
    orderdep)."""
    subprocess.run([base, "-m", "venv", str(where)], check=True)
    python = str(where / "bin" / "python")
    done = subprocess.run(
        [python, "-m", "pip", "install", "-q", "pytest", *install],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return python


@pytest.mark.slow
@pytest.mark.parametrize(
    ("pyproject", "package_dir", "install"),
    [
        (SETUPTOOLS + SRC_LAYOUT, "src/shop", ("-e", ".")),
        (SETUPTOOLS + FINDER_LAYOUT, "lib/shopcode", ("-e", ".")),
        (HATCHLING, "src/shop", ("-e", ".")),
        (SETUPTOOLS + SRC_LAYOUT, "src/shop", (".",)),
        (SETUPTOOLS + NAMESPACE_LAYOUT, "src/acme/shop", ("-e", ".")),
    ],
    ids=[
        "setuptools-pth",
        "setuptools-finder",
        "hatchling-editable",
        "non-editable",
        "namespace-package",
    ],
)
def test_an_installed_project_in_its_own_venv_is_repaired(
    cli: CliRunner,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pyproject: str,
    package_dir: str,
    install: tuple[str, ...],
) -> None:
    """The project in a venv of its own, orderdep in another (``--python``): orderdep
    lends its package to that interpreter; each install mode is repaired as a flat
    project is (a non-editable install: the state is found in site-packages and the patch
    goes into the tests)."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    project = shop_project(tmp_path / "shop", pyproject, package_dir)
    python = make_venv(tmp_path / "venv", project, *install)
    module = "acme.shop" if package_dir.startswith("src/acme/") else "shop"
    where = subprocess.run(
        [python, "-c", f"import {module} as m; print(m.__file__)"], capture_output=True, text=True
    ).stdout
    assert ("site-packages" in where) == (install == (".",)), where
    no_orderdep = subprocess.run([python, "-c", "import orderdep"], capture_output=True)
    assert no_orderdep.returncode != 0  # orderdep lives in another environment
    code, _, err = cli("run", project, "--python", python, VICTIM)
    assert code == 0, err
    said = "the tests import shop from a non-editable install (site-packages)"
    assert (said in err) == (install == (".",)), err
    check_repairs(cli, project, python, "--python", python, module=module)
    assert os.path.exists(project / "tests" / "test_shop.py")


def oldest_python() -> Optional[str]:
    """An interpreter of the oldest Python the test processes' code supports, if this
    machine has one (on the path, or installed by pyenv)."""
    name = "python{}.{}".format(*MIN_PYTHON)
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = [shutil.which(name), *map(str, sorted(pyenv.glob(f"versions/*/bin/{name}")))]
    for python in filter(None, found):
        said = subprocess.run(
            [python, "-c", "import sys; print(sys.version_info[:2])"],
            capture_output=True,
            text=True,
        )
        if said.stdout.strip() == str(MIN_PYTHON):
            return python
    return None


def test_the_test_processes_code_imports_on_the_oldest_python_supported(tmp_path: Path) -> None:
    """The child plugin, the fork server and every probe the engine loads into a test
    process import on that interpreter, lent orderdep's package as a venv without it is."""
    base = oldest_python()
    if base is None:
        pytest.skip("no Python {}.{} on this machine".format(*MIN_PYTHON))
    modules = [
        "orderdep.engine.childplugin",
        "orderdep.engine.forkserver",
        STATE_PROBE,
        DEBUG_PROBE,
        COVERAGE_PROBE,
    ]
    python = make_venv(tmp_path / "venv", tmp_path, base=base)  # pytest, not orderdep
    env = with_shim({k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    code = "import importlib, sys; [importlib.import_module(m) for m in sys.argv[1:]]"
    done = subprocess.run([python, "-c", code, *modules], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_project_on_the_oldest_python_supported_is_repaired(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project whose venv has the oldest Python supported (3.8: a project that has not
    moved on), orderdep running on its own newer one: detect, pradet (the state probe) and
    fix (the debug probe) run their code in that interpreter's test processes."""
    base = oldest_python()
    if base is None:
        pytest.skip("no Python {}.{} on this machine".format(*MIN_PYTHON))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    project = shop_project(tmp_path / "shop", SETUPTOOLS + SRC_LAYOUT)
    python = make_venv(tmp_path / "venv", project, "-e", ".", base=base)
    check_repairs(cli, project, python, "--python", python)


def test_the_project_imported_before_orderdep_loads_is_named(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``sitecustomize`` that imports the package at start-up is too early to redirect:
    orderdep says which modules run from the original tree."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    project = shop_project(tmp_path / "shop", SETUPTOOLS + SRC_LAYOUT)
    early = write_files(tmp_path / "site", {"sitecustomize.py": "import shop\n"})
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(early), str(project / "src")]))
    code, _, err = cli("run", project, VICTIM)
    assert code == 0, err
    assert (
        "orderdep: 1 module(s) of the project were imported from its own tree before "
        "orderdep's plugin loaded (shop), so orders run them from there"
    ) in err


def test_doctor_names_the_project_modules_imported_from_the_original_tree(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    project = shop_project(tmp_path / "shop", SETUPTOOLS + SRC_LAYOUT)
    early = write_files(tmp_path / "site", {"sitecustomize.py": "import shop\n"})
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(early), str(project / "src")]))
    _, _, err = cli("doctor", project, "--random", "0", "--singles", "1", "--budget", "120")
    assert "module(s) of the project were imported from its own tree" in err
