"""``kconnect-testkit verify``: install a plugin apart, run every applicable suite, report."""

from __future__ import annotations

import difflib
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
from collections.abc import Callable
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

# Groups a worker reads; worker plug-ins have no conformance suite (yet), so are listed only.
_KNOWN_GROUPS = (
    *_SUITES,
    "kconnect.config_providers",
    "kconnect.rest_extensions",
    "kconnect.connector_client_config_override_policies",
)

# Generated next to the suites: one progress line per finished check (stdout, flushed),
# and each test's docstring, so the JUnit names can say what was checked.
_PROGRESS_CONFTEST = textwrap.dedent(
    """
    import json, sys

    NAMES = json.loads(%r)
    _done = [0]
    _total = [0]
    _docs = {}


    def pytest_collection_modifyitems(session, config, items):
        _total[0] = len(items)
        for item in items:
            doc = (getattr(getattr(item, "function", None), "__doc__", None) or "").strip()
            _docs[item.nodeid] = doc.splitlines()[0].rstrip(".") if doc else ""
        with open("docs.json", "w") as out:
            json.dump(_docs, out)


    def pytest_runtest_logreport(report):
        if report.when != "call" and not (report.failed or report.skipped):
            return
        if report.when == "teardown" and not report.failed:
            return
        _done[0] += report.when != "teardown"
        cls = report.nodeid.split("::")[-2] if "::" in report.nodeid else ""
        test = report.nodeid.split("::")[-1]
        outcome = "ERROR" if report.failed and report.when != "call" else report.outcome.upper()
        # Through the terminal reporter: pytest captures print() in hooks.
        reporter = _config[0].pluginmanager.get_plugin("terminalreporter")
        line = f"kc-progress: [{_done[0]}/{_total[0]}] {NAMES.get(cls, cls)} {test} {outcome}"
        reporter.write_line(line, flush=True)


    _config = [None]


    def pytest_configure(config):
        _config[0] = config
    """
)

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
        raw = case.get("classname", "")
        # The generated class (TestPlugin3), or the plugin name once _rename_junit ran.
        plugin = names.get(raw.rsplit(".", 1)[-1], raw)
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            found = case.find(tag)
            if found is not None:
                outcome = {"failure": "failed"}.get(tag, tag)
                message = (found.get("message") or "").strip()
                trace = (found.text or "").strip()
                if trace and trace != message:
                    message = f"{message}\n{trace}" if message else trace
                break
        test = case.get("name", "").split(": ", 1)[0]
        results.append(CaseResult(plugin, test, outcome, message))
    return results


def _no_progress(line: str) -> None:
    """Progress sink that drops everything (the library default)."""


def _unknown_group_results(entry_points: list[tuple[str, str, str]]) -> list[CaseResult]:
    """A failed check per entry point in a ``kconnect.*`` group no worker reads."""
    results = []
    for group, name, value in entry_points:
        if group in _KNOWN_GROUPS:
            continue
        close = difflib.get_close_matches(group, _KNOWN_GROUPS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        results.append(
            CaseResult(
                name,
                "test_entry_point_group_is_known",
                "failed",
                f"entry point {name} = {value} is in group {group!r}, which no kconnect worker "
                f"reads{hint}; the groups are: {', '.join(_KNOWN_GROUPS)}",
            )
        )
    return results


def _run_streaming(cmd: list[str], cwd: Path, progress: Callable[[str], None]) -> str:
    """Run pytest, handing its progress lines on as they come; returns all its output."""
    lines: list[str] = []
    with subprocess.Popen(
        cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            at = line.find("kc-progress: ")  # pytest's own dots may precede it
            if at >= 0:
                progress(line[at + len("kc-progress: ") :].rstrip("\n"))
            else:
                lines.append(line)
    return "".join(lines)


def _naming_plugins(
    progress: Callable[[str], None], names: dict[str, str]
) -> Callable[[str], None]:
    """``progress`` with a check's own progress lines (``TestPlugin3::test_x[s]: ...``)
    naming the plugin instead of the generated class."""

    def relay(line: str) -> None:
        cls, sep, rest = line.partition("::")
        progress(f"{names[cls]} {rest}" if sep and cls in names else line)

    return relay


def _describe_test(test: str) -> str:
    """``test_restart_from_committed_offsets[twenty]`` -> ``restart from committed offsets
    (scenario twenty)``: what a check without a docstring verifies, in words."""
    base, _, param = test.partition("[")
    words = base.removeprefix("test_").replace("_", " ")
    return f"{words} (scenario {param.rstrip(']')})" if param else words


def _rename_junit(
    junit: Path, names: dict[str, str], docs: dict[str, str], extra: list[CaseResult]
) -> None:
    """JUnit cases named for what they checked: class = the plugin, name = test + docstring.

    ``extra`` (checks verify made itself, such as entry-point groups) are added as cases.
    """
    tree = ET.parse(junit)
    for case in tree.getroot().iter("testcase"):
        cls = case.get("classname", "").rsplit(".", 1)[-1]
        test = case.get("name", "")
        doc = next((d for node, d in docs.items() if node.endswith(f"{cls}::{test}") and d), "")
        case.set("classname", names.get(cls, cls))
        case.set("name", f"{test}: {doc or _describe_test(test)}")
    suite = next(tree.getroot().iter("testsuite"), tree.getroot())
    for result in extra:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=result.plugin,
            name=f"{result.test}: {_describe_test(result.test)}",
        )
        ET.SubElement(case, "failure", message=result.message).text = result.message
    if extra:
        suite.set("tests", str(int(suite.get("tests", "0")) + len(extra)))
        suite.set("failures", str(int(suite.get("failures", "0")) + len(extra)))
    tree.write(junit, encoding="utf-8", xml_declaration=True)


def verify(
    target: str,
    *,
    report_dir: Path | None,
    strict: bool = False,
    isolated: bool = False,
    progress: Callable[[str], None] = _no_progress,
) -> tuple[int, str]:
    """Install ``target``, run the suites its plugins call for, write reports.

    ``isolated``: install the target into a plugin.path location of its own (as
    ``kconnect plugins install`` does) and run the suites in isolated mode, driving the
    plugins through the runtime's worker-subprocess protocol; else into a temporary venv
    that also sees this environment, with the suites run in-process there.

    ``progress`` gets one line per step and per finished check while it runs.

    Returns the exit code (0 when every check passed) and the text table to print: one row
    per check, then each failure's full message and traceback.

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
        unknown = _unknown_group_results(entry_points)
        source, names = _test_module(entry_points, None if location is None else str(location))
        tests = root / "tests"
        tests.mkdir()
        (tests / "pytest.ini").write_text("[pytest]\naddopts = --import-mode=importlib\n")
        (tests / "test_verify.py").write_text(source)
        (tests / "conftest.py").write_text(_PROGRESS_CONFTEST % json.dumps(names))
        progress(f"verifying {dist} {version}: {len(names)} plugin(s), suites running")
        for result in unknown:
            progress(f"{result.plugin}: {result.message}")
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
        output = _run_streaming(cmd, tests, _naming_plugins(progress, names))
        if not junit.exists():
            raise VerifyError(f"pytest did not run the suites:\n{output[-4000:]}")
        docs_file = tests / "docs.json"
        docs = json.loads(docs_file.read_text()) if docs_file.exists() else {}
        _rename_junit(junit, names, docs, unknown)
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
    for cause, group in _by_cause(results):
        first = group[0]
        if len(group) == 1:
            lines += ["", f"--- {first.outcome.upper()}: {first.plugin} {first.test}"]
        else:
            # One plugin bug (a raising poll(), say) fails most checks alike: say it once.
            lines += ["", f"--- {len(group)} checks failed for one cause: {cause}"]
            lines += [f"    {r.plugin} {r.test}" for r in group]
        lines.append(first.message or "(no message)")
    return "\n".join(lines)


def _by_cause(results: list[CaseResult]) -> list[tuple[str, list[CaseResult]]]:
    """The failed checks grouped by the cause their message states first, in the order
    of each cause's first failure."""
    from ._support import failure_cause

    groups: dict[str, list[CaseResult]] = {}
    for r in results:
        if r.outcome in ("failed", "error"):
            groups.setdefault(failure_cause(r.message) or r.test, []).append(r)
    return list(groups.items())


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
    shared = [(cause, group) for cause, group in _by_cause(results) if len(group) > 1]
    if shared:
        lines += [
            "",
            "## Failures by cause",
            "",
            "| checks | cause | failed checks |",
            "|---|---|---|",
        ]
        for cause, group in shared:
            tests = ", ".join(f"`{r.plugin}` `{r.test}`" for r in group)
            lines.append(f"| {len(group)} | {cause[:300].replace('|', chr(92) + '|')} | {tests} |")
    return "\n".join(lines) + "\n"
