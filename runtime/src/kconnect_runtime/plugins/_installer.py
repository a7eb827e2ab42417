"""``kconnect plugins install``: make a plugin.path location (one venv) and install into it."""

from __future__ import annotations

import importlib.metadata as md
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import kconnect_sdk
from kconnect_sdk import ConnectError

from kconnect_runtime.isolation import location_python

from ._descriptor import PluginDesc
from ._discovery import discover_location

__all__ = ["install_plugin"]

_SDK_DIST = "kconnect-sdk"


def _installer(choice: str) -> list[str] | None:
    """The uv command to use, or None for the venv's own pip."""
    if choice == "pip":
        return None
    uv = shutil.which("uv")
    if uv is None:
        if choice == "uv":
            raise ConnectError("--installer uv: no `uv` on PATH")
        return None
    return [uv]


def _run(cmd: Sequence[str], what: str) -> None:
    done = subprocess.run(list(cmd), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ConnectError(
            f"{what} failed (exit {done.returncode}): {' '.join(cmd)}\n{done.stderr.strip()}"
        )


def _site_packages(python: Path) -> Path:
    out = subprocess.run(
        [str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


def _vendor_sdk(site: Path) -> str:
    """Copy the runtime's kconnect_sdk package and its metadata into ``site``."""
    dist = md.distribution(_SDK_DIST)
    package = Path(kconnect_sdk.__file__).parent
    target = site / "kconnect_sdk"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__"))
    for old in site.glob("kconnect_sdk-*.dist-info"):
        shutil.rmtree(old)
    info = site / f"kconnect_sdk-{dist.version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(dist.read_text("METADATA") or "", encoding="utf-8")
    (info / "INSTALLER").write_text("kconnect\n", encoding="utf-8")
    files = [p.relative_to(site).as_posix() for p in target.rglob("*") if p.is_file()]
    files += [f"{info.name}/METADATA", f"{info.name}/INSTALLER", f"{info.name}/RECORD"]
    (info / "RECORD").write_text("".join(f"{f},,\n" for f in files), encoding="utf-8")
    return dist.version


def install_plugin(
    requirements: Sequence[str],
    location: str | os.PathLike[str],
    *,
    no_deps: bool = False,
    installer: str = "auto",
    extra_args: Sequence[str] = (),
) -> list[PluginDesc]:
    """Create (or update) the plugin.path location ``location`` and install into it.

    Args:
        requirements: what to install: requirement specifiers, wheel files or project dirs.
        location: the location's directory (one venv per location).
        no_deps: install without the plugin's dependencies (they must be present already).
        installer: ``uv``, ``pip`` or ``auto`` (uv when on PATH).
        extra_args: passed on to the installer.

    Returns:
        The plugins the location provides afterwards.

    Raises:
        ConnectError: venv creation or installation failed (with the installer's output).
    """
    root = Path(location).absolute()
    uv = _installer(installer)
    if not (root / "pyvenv.cfg").exists():
        root.parent.mkdir(parents=True, exist_ok=True)
        # The runtime's own interpreter version: the copied SDK must import there.
        cmd = [sys.executable, "-m", "venv", str(root)]
        if uv is not None:
            cmd.insert(3, "--without-pip")
        _run(cmd, f"creating the plugin location {root}")
    python = location_python(root)
    _vendor_sdk(_site_packages(python))
    args = [*requirements, *(["--no-deps"] if no_deps else []), *extra_args]
    if uv is not None:
        _run([*uv, "pip", "install", "--python", str(python), *args], "installing the plugin")
    else:
        _run([str(python), "-m", "pip", "install", *args], "installing the plugin")
    return discover_location(root)
