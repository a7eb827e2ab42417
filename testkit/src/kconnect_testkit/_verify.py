"""``kconnect-testkit verify``: install a plugin apart, run every applicable suite, report."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import tempfile
import textwrap
import venv
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CaseResult", "VerifyError", "verify"]

_SUITES = {
    "kconnect.source_connectors": ("SourceConnectorSuite", "SOURCE"),
    "kconnect.sink_connectors": ("SinkConnectorSuite", "SINK"),
    "kconnect.converters": ("ConverterSuite", "CONVERTER"),
    "kconnect.transforms": ("TransformSuite", "TRANSFORMATION"),
    "kconnect.predicates": ("PredicateSuite", "PREDICATE"),
    "kconnect.header_converters": ("PluginPackageSuite", "HEADER_CONVERTER"),
}

_ENTRY_POINTS_PROBE = textwrap.dedent(
    """
    import importlib.metadata as md, json, sys
    dist = md.distribution(sys.argv[1])
    print(json.dumps({"version": dist.version, "entry_points": [
        [ep.group, ep.name, ep.value] for ep in dist.entry_points
        if ep.group.startswith("kconnect.")]}))
    """
)


class VerifyError(Exception):
    """The plugin could not be installed or inspected (not a conformance failure)."""


@dataclass(frozen=True, slots=True)
class CaseResult:
    plugin: str
    test: str
    outcome: str  # passed, failed, error, skipped
    message: str


def _run(cmd: list[str], *, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def _make_env(root: Path) -> Path:
    """A venv that also sees this interpreter's packages (the SDK, runtime and testkit)."""
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    if purelib.returncode != 0:
        raise VerifyError(f"the temporary venv at {env_dir} does not run: {purelib.stderr}")
    # addsitedir (not a plain path line) so the editable installs' own .pth files work too.
    ours = [p for p in [*site.getsitepackages(), site.getusersitepackages()] if Path(p).is_dir()]
    lines = [f"import site; site.addsitedir({p!r})" for p in ours]
    (Path(purelib.stdout.strip()) / "_kconnect_testkit_parent.pth").write_text(
        "\n".join(lines) + "\n"
    )
    return python


def _install(python: Path, target: str, root: Path) -> str:
    """Install ``target`` into the venv; returns its distribution name."""
    report = root / "pip-report.json"
    base = [
        str(python),
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--no-input",
        "--report",
        str(report),
    ]
    spec = _install_spec(target, root)
    # Offline first: build with what is installed and take dependencies from this
    # environment; fall back to pip's isolated build (which fetches the build backend).
    attempts = [[*base, "--no-build-isolation", spec], [*base, spec]]
    errors = []
    for cmd in attempts:
        done = _run(cmd)
        if done.returncode == 0:
            break
        errors.append(done.stderr.strip()[-1500:])
    else:
        raise VerifyError(f"pip could not install {target!r}:\n" + "\n---\n".join(errors))
    installed = json.loads(report.read_text()).get("install", [])
    direct = [item for item in installed if item.get("is_direct")] or installed
    if not direct:
        raise VerifyError(f"pip installed nothing for {target!r}")
    return str(direct[0]["metadata"]["name"])


def _entry_points(python: Path, dist: str) -> tuple[str, list[tuple[str, str, str]]]:
    done = _run([str(python), "-c", _ENTRY_POINTS_PROBE, dist])
    if done.returncode != 0:
        raise VerifyError(f"cannot read the entry points of {dist}: {done.stderr[-800:]}")
    data = json.loads(done.stdout)
    return data["version"], [(g, n, v) for g, n, v in data["entry_points"]]


def _install_spec(target: str, root: Path) -> str:
    """What to install for ``target``: a directory is copied first (an in-tree build would
    leave build/ and *.egg-info behind), a file path made absolute, a requirement kept."""
    if Path(target).is_dir():
        copy = root / "source"
        shutil.copytree(
            target, copy, ignore=shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info")
        )
        return str(copy)
    if Path(target).exists():
        return str(Path(target).resolve())
    return target


def _install_location(target: str, root: Path) -> Path:
    """Install ``target`` into a new plugin.path location, as ``kconnect plugins install`` does."""
    from kconnect_runtime.plugins import install_plugin
    from kconnect_sdk import ConnectError

    spec = _install_spec(target, root)
    location = root / "location"
    try:
        install_plugin([spec], location)
    except ConnectError as exc:
        raise VerifyError(f"cannot install {target!r} into a plugin location: {exc}") from None
    return location


def _location_entry_points(location: Path) -> tuple[str, str, list[tuple[str, str, str]]]:
    """Distribution, version and ``kconnect.*`` entry points of what a location holds."""
    from kconnect_runtime.plugins import PluginRegistry

    found = [d for d in PluginRegistry.discover(plugin_path=[location]).plugins() if d.location]
    if not found:
        return "unknown", "", []
    dists = sorted({(d.distribution, d.version) for d in found})
    dist = ", ".join(name for name, _ in dists)
    version = ", ".join(sorted({v for _, v in dists}))
    return dist, version, [(d.kind.group, d.name, d.target) for d in found]


def _test_module(
    entry_points: list[tuple[str, str, str]], location: str | None = None
) -> tuple[str, dict[str, str]]:
    """Source of a test module with one plain suite subclass per plugin, and class -> plugin."""
    lines = [
        '"""Generated by kconnect-testkit verify."""',
        "from kconnect_sdk import PluginKind",
        "import kconnect_testkit as kt",
        "",
    ]
    names: dict[str, str] = {}
    converter_targets = {v for g, _, v in entry_points if g == "kconnect.converters"}
    for i, (group, name, value) in enumerate(sorted(entry_points)):
        if group not in _SUITES:
            continue
        if group == "kconnect.header_converters" and value in converter_targets:
            continue  # the ConverterSuite covers a class registered as both
        suite, kind = _SUITES[group]
        cls = f"TestPlugin{i}"
        names[cls] = name
        where = "" if location is None else f", location={location!r}"
        lines += [
            f"class {cls}(kt.{suite}):",
            f"    plugin = {name!r}",
            f"    kind = PluginKind.{kind}",
            *([] if location is None else [f"    isolated_location = {location!r}"]),
            f"    scenarios = kt.example_scenarios({name!r}, PluginKind.{kind}{where})",
            f"    waivers = kt.example_waivers({name!r}, PluginKind.{kind}{where})",
            "",
        ]
    return "\n".join(lines) + "\n", names


def _results(junit: Path, names: dict[str, str]) -> list[CaseResult]:
    results = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        cls = case.get("classname", "").rsplit(".", 1)[-1]
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            found = case.find(tag)
            if found is not None:
                outcome = {"failure": "failed"}.get(tag, tag)
                message = (found.get("message") or found.text or "").strip()
                break
        results.append(CaseResult(names.get(cls, cls), case.get("name", ""), outcome, message))
    return results


def verify(
    target: str, *, report_dir: Path | None, strict: bool = False, isolated: bool = False
) -> tuple[int, str]:
    """Install ``target``, run the suites its plugins call for, write reports.

    ``isolated``: install the target into a plugin.path location of its own (as
    ``kconnect plugins install`` does) and run the suites in isolated mode, driving the
    plugins through the runtime's worker-subprocess protocol; else into a temporary venv
    that also sees this environment, with the suites run in-process there.

    Returns the exit code (0 when every check passed) and the text table to print.

    Raises:
        VerifyError: when the plugin cannot be installed or inspected.
    """
    with tempfile.TemporaryDirectory(prefix="kc-verify-") as scratch:
        root = Path(scratch)
        location: Path | None = None
        if isolated:
            location = _install_location(target, root)
            python = Path(sys.executable)
            dist, version, entry_points = _location_entry_points(location)
        else:
            python = _make_env(root)
            dist = _install(python, target, root)
            version, entry_points = _entry_points(python, dist)
        if not entry_points:
            raise VerifyError(
                f"{dist} {version} declares no kconnect.* entry points, so it has no plugins to verify"
            )
        source, names = _test_module(entry_points, None if location is None else str(location))
        tests = root / "tests"
        tests.mkdir()
        (tests / "pytest.ini").write_text("[pytest]\naddopts = --import-mode=importlib\n")
        (tests / "test_verify.py").write_text(source)
        junit = root / "junit.xml"
        cmd = [
            str(python),
            "-m",
            "pytest",
            str(tests),
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={junit}",
            "-o",
            "junit_family=xunit2",
            "--rootdir",
            str(tests),
        ]
        if strict:
            cmd.append("--kc-strictness=strict")
        if isolated:
            cmd.append("--kc-isolated")
        env_note = _run(cmd, cwd=tests)
        if not junit.exists():
            raise VerifyError(
                f"pytest did not run the suites:\n{env_note.stdout[-2000:]}{env_note.stderr[-2000:]}"
            )
        results = _results(junit, names)
        failed = [r for r in results if r.outcome in ("failed", "error")]
        table = _table(dist, version, results)
        if report_dir is not None:
            report_dir.mkdir(parents=True, exist_ok=True)
            (report_dir / "junit.xml").write_bytes(junit.read_bytes())
            (report_dir / "report.md").write_text(
                _markdown(dist, version, target, results, isolated=isolated)
            )
        return (1 if failed or not results else 0), table


def _table(dist: str, version: str, results: list[CaseResult]) -> str:
    rows = [
        (r.plugin, r.test, r.outcome.upper(), r.message.splitlines()[0][:100] if r.message else "")
        for r in results
    ]
    widths = [
        max([len(h), *(len(row[i]) for row in rows)])
        for i, h in enumerate(("plugin", "test", "result"))
    ]
    lines = [f"{dist} {version}", ""]
    header = ("plugin", "test", "result", "detail")
    lines.append("  ".join(h.ljust(w) for h, w in zip(header, [*widths, 0], strict=True)).rstrip())
    for row in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, [*widths, 0], strict=True)).rstrip())
    counts = {
        o: sum(r.outcome == o for r in results) for o in ("passed", "failed", "error", "skipped")
    }
    lines += ["", ", ".join(f"{n} {o}" for o, n in counts.items())]
    return "\n".join(lines)


def _markdown(
    dist: str, version: str, target: str, results: list[CaseResult], *, isolated: bool = False
) -> str:
    failed = sum(r.outcome in ("failed", "error") for r in results)
    verdict = "FAIL" if failed or not results else "PASS"
    lines = [
        f"# kconnect-testkit verify: {dist} {version} — {verdict}",
        "",
        f"Target: `{target}`. Python {sys.version.split()[0]} on {os.uname().sysname}. "
        + (
            "Isolated mode: installed in a plugin.path location of its own, driven through "
            "the runtime's worker-subprocess protocol."
            if isolated
            else "In-process mode."
        ),
        "",
        "| plugin | test | result | detail |",
        "|---|---|---|---|",
    ]
    for r in results:
        detail = r.message.splitlines()[0][:300].replace("|", "\\|") if r.message else ""
        lines.append(f"| `{r.plugin}` | `{r.test}` | {r.outcome} | {detail} |")
    return "\n".join(lines) + "\n"
