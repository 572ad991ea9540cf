"""Sets a real project of the manifest up for ``sdist_detect.py``, as its users do.

Its source is a PyPI sdist (``"spec": "name==version"``: ``pip download --no-binary``)
or a public git repository at a commit (``"repo": "owner/name"``, ``"commit"``: the tree
of that commit, ``git archive``d from a clone the user names with ``--git-dir NAME=PATH``,
less the manifest's ``"archive_exclude"`` paths; with ``"history": true``, for a
set-up that reads the history such as ``git describe``, a local clone checked out at the
commit instead; ``"checkout": "name"`` names the tree's directory, for a repository whose
root is a package its tests import by name; the manifest and this module name no local
path). It gets a venv of its own, made with
the interpreter the entry asks for (``"python": "3.9"``; default: the one running this),
then ``"requirements"`` (pins that let old code install), then the project itself,
``editable`` (``pip install -e .[extras]``, as contributing guides say) or ``wheel``
(``pip install .[extras]``, as tox does), then orderdep: this checkout, or one of its
revisions (``--orderdep-rev``) to score the same project "without a change".
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any, Optional

REPO = Path(__file__).resolve().parent.parent
OUTCOME = re.compile(
    r"^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S.*?)(?: - .*)?$"
)  # ids may hold spaces
SUMMARY = re.compile(r"^=+ short test summary info =+$")


def sh(
    cmd: list[str], cwd: Optional[Path] = None, timeout: float = 1800,
    env: Optional[dict[str, str]] = None,
) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """``cmd``'s output; past ``timeout`` its whole process group is killed (orderdep's
    workers too) and ``subprocess.TimeoutExpired`` raised."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    try:
        out, err = proc.communicate(timeout=max(timeout, 1.0))
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def label(project: dict[str, Any]) -> str:
    """``name==version`` for an sdist, ``owner/name@commit`` (12 digits) for a repository."""
    if "spec" in project:
        return str(project["spec"])
    return f"{project['repo']}@{project['commit'][:12]}"


def interpreter(version: Optional[str]) -> str:
    """pyenv's newest ``X.Y.*``, else ``pythonX.Y`` on PATH (one that runs: a pyenv shim of
    a version not selected does not); no version: this interpreter."""
    if not version:
        return sys.executable
    root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    found = sorted(glob.glob(f"{root}/versions/{version}.*/bin/python"))[-1:]
    found += [p for p in [shutil.which(f"python{version}")] if p]
    for python in found:
        if sh([python, "-c", "pass"]).returncode == 0:
            return python
    raise SystemExit(f"no Python {version}: neither pyenv's nor a python{version} on PATH")


def fetch_source(project: dict[str, Any], work: Path, git_dirs: dict[str, Path]) -> Path:
    """The project's tree under ``work`` (unpacked once)."""
    if "spec" in project:
        name, version = project["spec"].split("==")
        source = work / f"{name}-{version}"
        if source.exists():
            return source
        got = sh([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
                  ":all:", "-d", str(work), project["spec"]])  # fmt: skip
        if got.returncode:
            raise SystemExit(f"cannot download {project['spec']}: {got.stderr.strip()[-500:]}")
        archive = next(work.glob(f"{name}-{version}.tar.gz"))
        with tarfile.open(archive) as tar:
            tar.extractall(work, filter="data")
        return source
    source = work / f"{project['name']}-{project['commit'][:12]}"
    if project.get("checkout"):  # the directory name the tests need (a root package's)
        source = source / project["checkout"]
    if source.exists() and project.get("history") and not (source / ".git").exists():
        shutil.rmtree(source)  # unpacked before the entry asked for the history
    if source.exists():
        return source
    git_dir = git_dirs.get(project["name"])
    if git_dir is None:
        raise SystemExit(
            f"{project['name']} comes from https://github.com/{project['repo']}: clone it "
            f"and give --git-dir {project['name']}=PATH"
        )
    partial = work / "checkout.partial"
    shutil.rmtree(partial, ignore_errors=True)
    if project.get("history"):  # its set-up reads the history (`git describe`): a clone
        _checkout_with_history(_git_dir(git_dir), project["commit"], partial)
        source.parent.mkdir(parents=True, exist_ok=True)
        partial.rename(source)
        return source
    partial.mkdir()
    # paths the tests never read may be left out (a snapshot may lack its largest files)
    left_out = [f":(exclude){path}" for path in project.get("archive_exclude") or []]
    tar_of = subprocess.Popen(["git", f"--git-dir={_git_dir(git_dir)}", "archive",
                               project["commit"], "--", ".", *left_out],
                              stdout=subprocess.PIPE)  # fmt: skip
    untar = subprocess.run(["tar", "-x", "-C", str(partial)], stdin=tar_of.stdout, check=False)
    if tar_of.wait() or untar.returncode:
        raise SystemExit(f"cannot check {project['commit']} out of {git_dir}")
    source.parent.mkdir(parents=True, exist_ok=True)
    partial.rename(source)
    return source


def _checkout_with_history(git_dir: Path, commit: str, dest: Path) -> None:
    """A local clone of ``git_dir`` at ``commit``, history and tags included."""
    for args in (["clone", "-q", "--no-checkout", str(git_dir), str(dest)],
                 ["-C", str(dest), "-c", "advice.detachedHead=false", "checkout", "-q", commit]):  # fmt: skip
        got = sh(["git", *args])
        if got.returncode:
            raise SystemExit(f"cannot check {commit} out of {git_dir}: {got.stderr.strip()[-300:]}")


def _git_dir(path: Path) -> Path:
    """A clone's ``.git`` directory, or the path itself for a bare repository."""
    return path / ".git" if (path / ".git").is_dir() else path


class Installer:
    """Makes venvs and installs into them with pip (``python -m pip``) or uv (``uv venv``,
    ``uv pip install --python``, given pip's configured indexes, links and constraints)."""

    def __init__(self, name: str = "pip") -> None:
        if name not in ("pip", "uv"):
            raise SystemExit(f"unknown installer {name!r}: use pip or uv")
        self.name = name
        self.uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
        if name == "uv" and not Path(self.uv).exists():
            raise SystemExit("--installer uv: no uv found; pip install uv")

    def venv(self, interpreter_path: str, where: Path) -> subprocess.CompletedProcess[str]:
        if self.name == "uv":
            return sh([self.uv, "venv", "-q", "--seed", "--python", interpreter_path, str(where)])
        return sh([interpreter_path, "-m", "venv", str(where)])

    def install(self, python: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        if self.name == "uv":
            # pip's way with several indexes: the best match from all of them
            cmd = [self.uv, "pip", "install", "-q", "--python", str(python),
                   "--index-strategy", "unsafe-best-match", *_pip_config(), *args]  # fmt: skip
            return sh(cmd, cwd=cwd)
        return sh([str(python), "-m", "pip", "install", "-q", *args], cwd=cwd)


def _pip_config() -> list[str]:
    """pip's configured find-links, indexes and constraints as uv options."""
    listed = sh([sys.executable, "-m", "pip", "config", "list"]).stdout.splitlines()
    flags = {"find-links": "--find-links", "extra-index-url": "--extra-index-url",
             "index-url": "--index-url", "constraint": "--constraint"}  # fmt: skip
    out: list[str] = []
    for line in listed:
        key, _, value = line.partition("=")
        flag = flags.get(key.rsplit(".", 1)[-1])
        if flag:
            out += [a for v in value.strip("'\"").split() for a in (flag, v)]
    return out


def set_up(
    project: dict[str, Any], work: Path, git_dirs: dict[str, Path], orderdep: Path,
    installer: Optional[Installer] = None, apart: bool = False,
) -> tuple[Path, Path]:  # fmt: skip
    """The project's tree and its venv's python (made once per work directory).

    ``"install"``: ``editable`` (``pip install -e .``), ``wheel`` (``pip install .``) or
    ``none`` (the tests run from the tree; only the requirements are installed).
    ``apart``: orderdep is not installed into the project's venv (see
    :func:`orderdep_apart`), so the pytest the project pins stays."""
    tool = installer or Installer()
    source = fetch_source(project, work, git_dirs)
    python = work / "venv" / "bin" / "python"
    ready = work / "venv" / ".project-installed"
    if not ready.exists():
        shutil.rmtree(work / "venv", ignore_errors=True)
        made = tool.venv(interpreter(project.get("python")), work / "venv")
        if made.returncode:
            raise SystemExit(f"cannot make a venv: {made.stderr.strip()[-500:]}")
        steps = [["--upgrade", "pip"]] if tool.name == "pip" else []
        if project.get("requirements"):
            steps.append(list(project["requirements"]))
        mode = _install_mode(project)
        if mode:
            steps.append(mode)
            if project.get("requirements"):  # the project's own pins must not undo ours
                steps.append(list(project["requirements"]))
        for step in steps:
            done = tool.install(python, step, source)
            if done.returncode:
                raise SystemExit(f"cannot install {label(project)} ({' '.join(step)}): "
                                 f"{done.stderr.strip()[-800:]}")  # fmt: skip
        ready.touch()
    if not apart:
        install_orderdep(python, source, orderdep, tool)  # the code asked for, whatever ran last
    return source, python


def orderdep_apart(work: Path, orderdep: Path, installer: Optional[Installer] = None) -> Path:
    """The ``orderdep`` command of a venv of its own under ``work`` (as ``pipx install``
    makes one), on this interpreter, with the tree ``orderdep`` installed: it runs a
    project's suite with ``--python`` the project's interpreter."""
    tool = installer or Installer()
    venv = work / "orderdep-venv"
    exe = venv / "bin" / "orderdep"
    stamp = venv / ".orderdep-tree"
    if stamp.exists() and stamp.read_text() == str(orderdep) and exe.exists():
        return exe
    shutil.rmtree(venv, ignore_errors=True)
    made = tool.venv(sys.executable, venv)
    if made.returncode:
        raise SystemExit(f"cannot make orderdep's venv: {made.stderr.strip()[-500:]}")
    install_orderdep(venv / "bin" / "python", work, orderdep, tool)
    stamp.write_text(str(orderdep))
    return exe


def _install_mode(project: dict[str, Any]) -> list[str]:
    """pip's arguments installing the project as the manifest says ([] for ``none``)."""
    extras = ",".join(project.get("extras") or [])
    target = f".[{extras}]" if extras else "."
    mode = project.get("install", "editable")
    modes = {"editable": ["-e", target], "wheel": [target], "none": []}
    if mode not in modes:
        raise SystemExit(f"install {mode!r} is none of {', '.join(modes)} (see the manifest)")
    return modes[mode]


def venv_env(python: Path) -> dict[str, str]:
    """The environment of an activated venv: its bin first on PATH, ``VIRTUAL_ENV`` set
    (tests that start the project's console scripts find them), and a ``TMPDIR`` of the
    project's own beside the venv: a suite that cleans up the temporary directory (some
    remove every directory they find there) reaches nothing of the machine's."""
    env = dict(os.environ)
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(python.parent.parent)
    tmp = python.parent.parent.parent / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env["TMPDIR"] = str(tmp)
    return env


def orderdep_tree(rev: Optional[str], scratch: Path) -> tuple[Path, str]:
    """This checkout (``rev`` None) or that revision of it in ``scratch``, and its name."""
    if rev is None:
        head = sh(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]).stdout.strip()
        dirty = sh(["git", "-C", str(REPO), "status", "--porcelain", "--", "src"]).stdout
        return REPO, f"{head}{'+' if dirty.strip() else ''} (current)"
    short = sh(["git", "-C", str(REPO), "rev-parse", "--short", rev])
    if short.returncode:
        raise SystemExit(f"no revision {rev!r} in {REPO.name}: {short.stderr.strip()}")
    tree = scratch / f"orderdep-{short.stdout.strip()}"
    if not tree.exists():
        tree.mkdir(parents=True)
        archive = subprocess.Popen(["git", "-C", str(REPO), "archive", rev],
                                   stdout=subprocess.PIPE)  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(tree)], stdin=archive.stdout, check=True)
        archive.wait()
    return tree, short.stdout.strip()


def install_orderdep(
    python: Path, source: Path, orderdep: Path, installer: Optional[Installer] = None
) -> None:
    tool = installer or Installer()
    first = tool.install(python, [str(orderdep)], source)
    again = ["--force-reinstall", "--no-deps", str(orderdep)]
    done = tool.install(python, again, source) if first.returncode == 0 else first
    if done.returncode:
        raise SystemExit(f"cannot install orderdep: {done.stderr.strip()[-800:]}")


def plain(
    python: Path, source: Path, order: list[str], args: list[str],
    env: Optional[dict[str, str]] = None, timeout: float = 900,
) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """One fresh ``python -m pytest -p no:randomly`` process running ``order``."""
    cmd = [str(python), "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q",
           "-rA", *args, *order]  # fmt: skip
    return sh(cmd, cwd=source, timeout=timeout, env=env or venv_env(python))


def outcomes(run: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """Test id -> outcome, from the ``-rA`` summary of a plain run (only its summary:
    a captured log line such as ``ERROR    root:app.py:25 ...`` is not an outcome)."""
    out: dict[str, str] = {}
    lines = run.stdout.splitlines()
    starts = [i for i, line in enumerate(lines) if SUMMARY.match(line)]
    for line in lines[starts[-1] + 1 :] if starts else lines:
        m = OUTCOME.match(line)
        if m:
            out[m.group(2)] = m.group(1)
    return out


def fresh_copy(source: Path, parent: Path) -> Path:
    """A copy of the project's tree in ``parent`` (emptied first), without what earlier
    runs left in it. The copy keeps the tree's directory name: a tree whose root is a
    package imports under that name."""
    shutil.rmtree(parent, ignore_errors=True)
    ignore = shutil.ignore_patterns(".orderdep", ".pytest_cache", "__pycache__")
    dest = parent / source.name
    shutil.copytree(source, dest, ignore=ignore, symlinks=True)
    return dest


def install_project(python: Path, project: dict[str, Any], tree: Path) -> None:
    """The venv's project becomes ``tree`` (same mode, no dependencies touched): an
    editable install imports the tree it was made from, so a patched copy must be it.
    Nothing to do for ``install: none`` (the tests import the tree they run in)."""
    mode = _install_mode(project)
    if not mode:
        return
    done = Installer().install(python, ["--no-deps", *mode], tree)
    if done.returncode:
        raise SystemExit(f"cannot install {tree}: {done.stderr.strip()[-800:]}")


def scratch_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="orderdep-rev-"))
