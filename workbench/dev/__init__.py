"""`burgee dev`: the live workbench engine (reload, MCP while you edit, tokens, diffs).

Nothing here is imported by the plain CLI path; `workbench.cli` imports this package inside
the `dev` and `mcp --watch` handlers only. Heavy parts (mcp, watchfiles, tiktoken, uvicorn)
load inside the functions that use them.

Entry points for `workbench/cli.py`:

    main(file, *, headless=False, update=False, port=None, program_name=None,
         run_writes=False, snapshots=None, out=None) -> int
    headless_report(file, *, update=False, program_name=None, run_writes=False,
                    snapshots=None) -> dict          # the JSON envelope, not printed
    serve_stdio_watch(file, *, program_name=None) -> int

The engine objects the dashboard subscribes to: `Workbench` (`workbench.dev.engine`), `State`
(`workbench.dev.state`), `Event`, `RunResult`, `Diff`, `TrafficEntry`, `Problem`
(`workbench.dev.records`), `ENVIRONMENTS`. How the rooms depend on each other:
docs/architecture.md.

The rooms are imported inside the functions that use them: `workbench.cli` imports this
package for `burgee dev` and `burgee mcp --watch`, and importing it must not load the engine,
the MCP SDK or Textual (tests/test_dev_imports.py).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import TYPE_CHECKING, Any, TextIO

from workbench.declaration.model import Fail
from workbench.runtime import envelope as _envelope

if TYPE_CHECKING:
    from workbench.runtime.context import Context
    from workbench.runtime.serving import Policy

__all__ = ["main", "run_dev", "headless_report", "serve_stdio_watch", "sample_file",
           "Workbench", "State", "Event", "RunResult", "Diff", "TrafficEntry", "Problem",
           "ENVIRONMENTS"]

_HOMES = {"Workbench": "engine", "State": "state", "Event": "records", "RunResult": "records",
          "Diff": "records", "TrafficEntry": "records", "Problem": "records",
          "ENVIRONMENTS": "processes"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(f"workbench.dev.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'workbench.dev' has no attribute {name!r}")


def sample_file() -> str:
    """The bundled sample program `burgee dev` opens when no FILE is given."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for candidate in (os.path.join(package, "samples", "notes.py"),
                      os.path.join(os.path.dirname(package), "sample_programs", "notes.py")):
        if os.path.isfile(candidate):
            return candidate
    return os.path.join(package, "samples", "notes.py")


def main(file: str | None = None, *, headless: bool = False, update: bool = False,
         port: int | None = None, program_name: str | None = None, run_writes: bool = False,
         snapshots: str | None = None, out: TextIO | None = None, schema_version: str = "1",
         record: bool = False, replay: str | None = None, policy: Policy | None = None,
         check: bool = True, check_calls: int | None = None,
         picture: bool = False) -> int:
    """Run `burgee dev FILE`; returns the process exit code.

    headless: no screen; check the snapshot folder (default `.burgee/snapshots/` beside the
    file), print one JSON envelope report to `out` (stdout), exit non-zero on drift, a budget
    overrun, an error-level problem or a CLI/MCP mismatch (codes in docs/ci.md).
    update: with headless, accept the current surfaces as the new snapshots.
    picture: with headless, also draw the dashboard as SVG beside the snapshot folder.
    replay: with headless, replay the calls recorded in that file instead (docs/ci.md).
    check: with headless, also run `burgee check` on the file (`check_calls` calls per
    command, default that of `burgee check`); its violations and a recovery rate under
    budget fail the run.
    record: without headless, record every MCP tools/call to `.burgee/traffic/`.
    schema_version: with headless, the report's meta.schema_version (the printing program's).
    Without headless: serve MCP on 127.0.0.1:`port` (free port when None), reload on save,
    and keep serving: on a terminal in the dashboard (`q` quits), else logging to stderr
    until Ctrl-C. policy: the bearer token and bounds (`workbench.runtime.serving.Policy`;
    None: a random token, or $BURGEE_MCP_TOKEN).
    """
    file = file or sample_file()
    if headless:
        return _report(_headless_doc(file, update=update, program_name=program_name,
                                     run_writes=run_writes, snapshots=snapshots, replay=replay,
                                     check=check, check_calls=check_calls,
                                     picture=picture),
                       out, schema_version)
    if not os.path.isfile(file):
        raise Fail("file_not_found", f"{file} does not exist", exit=3,
                   hint="pass the path of a Python file that declares a Program",
                   fix="dev")   # `burgee dev` with no FILE opens the bundled sample
    if out is None and sys.stdin.isatty() and sys.stdout.isatty():
        from workbench.dev.dashboard import run_dashboard   # a terminal: the dashboard
        return run_dashboard(file, port=port, program_name=program_name, run_writes=run_writes,
                             record=record, policy=policy)
    from workbench.dev.serve import serve_http_forever      # piped: one log line per event
    return serve_http_forever(file, port=port, program_name=program_name,
                              run_writes=run_writes, out=out, record=record, policy=policy)


def _headless_doc(file: str, *, update: bool, program_name: str | None, run_writes: bool,
                  snapshots: str | None, replay: str | None, check: bool = True,
                  check_calls: int | None = None, picture: bool = False) -> dict[str, Any]:
    """The `--headless` check's envelope (its `data` is the report, passed or failed), with
    the dashboard picture written when asked (`picture`); or the replay's, with `replay`."""
    if replay:
        from workbench.dev.replay import replay as replay_calls
        return replay_calls(file, replay, run_writes=run_writes, program_name=program_name)
    from workbench.dev.headless import check_snapshots
    return check_snapshots(file, update=update, program_name=program_name,
                           run_writes=run_writes, snapshots=snapshots, check=check,
                           check_calls=check_calls,
                           picture=_dashboard_svg if picture else None)


def _report(doc: dict[str, Any], out: TextIO | None, schema_version: str) -> int:
    """Print a `--headless` report (one line of JSON) and return its exit code. Its meta ends
    with the printing program's schema_version, as every envelope `burgee` writes does (handed
    down by the caller: the workbench never imports the CLI above it)."""
    meta = doc.setdefault("meta", {})
    meta.pop("schema_version", None)
    meta["schema_version"] = schema_version
    out = out or sys.stdout
    out.write(_envelope.encode(doc) + "\n")
    out.flush()
    return _envelope.exit_code(doc)


def _dashboard_svg(bench: Any, report: dict[str, Any], *, ok: bool,
                   update: bool) -> None:
    """Draw the dashboard of `bench` (already loaded: not loaded again) beside the snapshot
    folder; the path goes in the report (a picture that cannot be drawn never fails the
    check). A failed check keeps the committed picture and draws the failing state beside it
    (`….dashboard.failed.svg`)."""
    try:
        from workbench.dev.dashboard import svg_path_for_snapshots, write_svg
        path = svg_path_for_snapshots(report["snapshots"])
        failed = path[:-len(".svg")] + ".failed.svg"
        if not ok and not update:
            path = failed
        elif os.path.exists(failed):
            os.remove(failed)   # the failure it pictured is gone
        report["dashboard_svg"] = write_svg(bench.file, path, program_name=bench.program_name,
                                            bench=bench)
    except Exception as exc:  # noqa: BLE001 - the picture never fails the check
        report["dashboard_svg"] = None
        report["dashboard_svg_error"] = f"{type(exc).__name__}: {exc}"


def headless_report(file: str | None = None, *, update: bool = False,
                    program_name: str | None = None, run_writes: bool = False,
                    snapshots: str | None = None, check: bool = True,
                    check_calls: int | None = None) -> dict[str, Any]:
    """The `--headless` check as an envelope dict (success, or failure with the report)."""
    from workbench.dev.headless import check_snapshots
    return check_snapshots(file or sample_file(), update=update, program_name=program_name,
                           run_writes=run_writes, snapshots=snapshots, check=check,
                           check_calls=check_calls)


def run_dev(ctx: Context) -> dict[str, Any] | None:
    """The `burgee dev` handler body (`workbench/cli.py`).

    Headless returns the report (the envelope's `data`; a person reads `report_text`) or
    raises the check's Fail carrying it as `data`; the interactive form serves until Ctrl-C
    and exits with its code.
    """
    options = ctx.options
    if options.get("headless"):
        return _headless(ctx)
    code = main(ctx.args.get("file"), port=options.get("port"),
                program_name=options.get("program"), run_writes=bool(options.get("run_writes")),
                record=bool(options.get("record")), policy=_policy(options, ctx.environ))
    raise SystemExit(code)


def _headless(ctx: Context) -> dict[str, Any]:
    """`burgee dev FILE --headless`: the report as the framework's envelope (`--json`), or as
    text for a person (on a failure printed before the error line)."""
    options = ctx.options
    doc = _headless_doc(ctx.args.get("file") or sample_file(),
                        update=bool(options.get("update")), program_name=options.get("program"),
                        run_writes=bool(options.get("run_writes")),
                        snapshots=options.get("snapshots"), replay=options.get("replay"),
                        check=options.get("check") is not False,
                        check_calls=options.get("check_calls"),
                        picture=bool(options.get("picture")))
    report = doc.get("data")
    if doc.get("ok") is True:
        return doc["data"]
    error = dict(doc["error"])
    raise Fail(error.pop("code"), error.pop("message"), hint=error.pop("hint", None),
               exit=error.pop("exit"), fix=error.pop("fix", None),
               retryable=error.pop("retryable", None), data=report, **error)


def _policy(options: Any, environ: Any) -> Policy:
    """The HTTP server's Policy from `burgee dev`'s flags (`workbench.runtime.serving`)."""
    from workbench.runtime import serving
    try:
        return serving.http_policy(
            "127.0.0.1", options.get("port") or 0, environ=environ,
            token_file=options.get("token_file"), no_auth=bool(options.get("no_auth")),
            max_sessions=options.get("max_sessions"), idle_timeout=options.get("idle_timeout"))
    except serving.PolicyError as error:
        raise Fail(error.code, error.message, exit=2, hint=error.hint,
                   fix=" ".join(["dev", *error.fix])) from None


def serve_stdio_watch(file: str | None = None, *, program_name: str | None = None) -> int:
    """`burgee mcp FILE --watch`: serve MCP over stdio, reload on save, tell the client."""
    from workbench.dev.serve import serve_stdio_forever
    return serve_stdio_forever(file or sample_file(), program_name=program_name)
