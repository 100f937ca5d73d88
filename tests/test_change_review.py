"""The change review: a table of before/after programs, one per rule, each with its class and
reason; `burgee diff` over files, snapshot folders and git revisions; the semver rule."""

import json
import os
import subprocess
import sys

import pytest

from workbench import Command, Option, Program
from workbench.dev.changes import major_bump, review_files
from workbench.dev.review import files_of_program

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = {"type": "object", "properties": {"target": {"type": "string"},
                                          "build": {"type": "string"},
                                          "healthy": {"type": "boolean"}},
          "required": ["target"]}


def _run(ctx):
    return {"target": "staging", "build": "1", "healthy": True}


def deploy_options(**changes):
    options = {
        "target": Option(type="string", required=True, description="where to deploy", short="t"),
        "build": Option(type="string", default="latest", description="build to ship"),
        "compression": Option(type="enum", choices=("gzip", "zstd"), default="gzip",
                              description="how to pack"),
        "retries": Option(type="integer", default=3, description="attempts"),
        "timeout": Option(type="number", description="seconds to wait"),
        "note": Option(type="string", description="a note"),
        "region": Option(type="string", description="where"),
    }
    for key, value in changes.items():
        if value is None:
            options.pop(key)
        else:
            options[key] = value
    return options


def make(version="1.0.0", description="Ships builds", deploy=None, status=None, extra=(),
         order=("deploy", "status"), drop=()):
    deploy = {"name": "deploy", "description": "Deploy a build", "effects": "non_idempotent",
              "options": deploy_options(), "examples": ["tool deploy --target staging"],
              **(deploy or {})}
    status = {"name": "status", "description": "Show what is deployed", "effects": "read_only",
              "options": {"target": Option(type="enum", choices=("staging", "prod", "canary"),
                                           default="staging", description="which target")},
              "output": OUTPUT, "aliases": ("st",), "examples": ["tool status"],
              **(status or {})}
    built = {"deploy": Command(run=_run, **deploy), "status": Command(run=_run, **status)}
    commands = [built[name] for name in order if name not in drop] + list(extra)
    return Program(name="tool", version=version, description=description, commands=commands)


def with_options(**changes):
    return {"options": deploy_options(**changes)}


def renamed_status():
    return make(status={"name": "state", "examples": ["tool state"]})


def IDEMPOTENT():
    return make(deploy={"effects": "idempotent"})


LOGS = Command(name="logs", description="Show logs", effects="read_only", run=_run)

CASES = [
    # (id, after, kind, rule, words in the reason[, before: make() unless given])
    ("minimum raised", lambda: make(deploy=with_options(retries=Option(
        type="integer", default=3, min=1, description="attempts"))), "breaking",
     "range_narrowed", "--retries now has minimum 1 (was none)"),
    ("maximum lowered", lambda: make(deploy=with_options(retries=Option(
        type="integer", default=3, max=5, description="attempts"))), "additive",
     "range_widened", "every old value still fits", lambda: make(deploy=with_options(
         retries=Option(type="integer", default=3, max=3, description="attempts")))),
    ("requires added", lambda: make(deploy=with_options(note=Option(
        type="string", requires=["region"], description="a note"))), "breaking",
     "requires_added", "--note of 'deploy' now needs --region"),
    ("conflict added", lambda: make(deploy=with_options(note=Option(
        type="string", conflicts=["region"], description="a note"))), "breaking",
     "conflict_added", "can no longer be given together"),
    ("format added", lambda: make(deploy=with_options(note=Option(
        type="date", description="a note"))), "breaking", "format_narrowed",
     "--note must now be a date"),
    ("path check added", lambda: make(deploy=with_options(note=Option(
        type="path", exists=True, description="a note"))), "breaking", "path_check_added",
     "now checks exists=True", lambda: make(deploy=with_options(note=Option(
         type="path", description="a note")))),
    ("command removed", lambda: make(drop=("status",)), "breaking", "command_removed",
     "'status' was removed"),
    ("command renamed", renamed_status, "breaking", "command_renamed", "renamed to 'state'"),
    ("command added", lambda: make(extra=[LOGS]), "additive", "command_added", "'logs'"),
    ("command description", lambda: make(status={"description": "Show deployments"}),
     "cosmetic", "command_description", "reads differently"),
    ("option removed", lambda: make(deploy=with_options(region=None)), "breaking",
     "option_removed", "--region of 'deploy' was removed"),
    ("option renamed", lambda: make(deploy=with_options(compression=None, codec=Option(
        type="enum", choices=("gzip", "zstd"), default="gzip", description="how to pack"))),
     "breaking", "option_renamed", "looks renamed to --codec"),
    ("option renamed, old name kept", lambda: make(deploy=with_options(
        compression=None, codec=Option(type="enum", choices=("gzip", "zstd"), default="gzip",
                                       description="how to pack", aliases=["compression"]))),
     "additive", "option_renamed_kept", "the old name still works"),
    ("option's old name dropped", lambda: make(deploy=with_options(
        compression=None, codec=Option(type="enum", choices=("gzip", "zstd"), default="gzip",
                                       description="how to pack"))),
     "breaking", "option_alias_removed", "--compression (old name of --codec",
     lambda: make(deploy=with_options(
         compression=None, codec=Option(type="enum", choices=("gzip", "zstd"),
                                        default="gzip", description="how to pack",
                                        aliases=["compression"])))),
    ("optional option added", lambda: make(deploy=with_options(
        dry=Option(type="boolean", description="only plan"))), "additive", "option_added",
     "new optional --dry"),
    ("new required input", lambda: make(deploy=with_options(
        owner=Option(type="string", required=True, description="who"))), "breaking",
     "new_required_input", "now requires --owner"),
    ("option became required", lambda: make(deploy=with_options(
        note=Option(type="string", required=True, description="a note"))), "breaking",
     "option_required", "--note of 'deploy' became required"),
    ("option became optional", lambda: make(deploy=with_options(
        target=Option(type="string", description="where to deploy", short="t"))), "additive",
     "option_optional", "--target of 'deploy' is optional"),
    ("type narrowed number to integer", lambda: make(deploy=with_options(
        timeout=Option(type="integer", description="seconds to wait"))), "breaking",
     "type_narrowed", "now takes integer (was number)"),
    ("type narrowed to an enum", lambda: make(deploy=with_options(
        note=Option(type="enum", choices=("a", "b"), description="a note"))), "breaking",
     "type_narrowed", "now takes only a, b"),
    ("type changed", lambda: make(deploy=with_options(
        note=Option(type="integer", description="a note"))), "breaking", "type_changed",
     "now takes integer (was string)"),
    ("type widened", lambda: make(deploy=with_options(
        retries=Option(type="number", default=3, description="attempts"))), "additive",
     "type_widened", "every old value still fits"),
    ("enum value removed", lambda: make(status={"options": {"target": Option(
        type="enum", choices=("staging", "prod"), default="staging",
        description="which target")}}), "breaking", "enum_value_removed",
     "no longer accepts canary"),
    ("enum value added", lambda: make(status={"options": {"target": Option(
        type="enum", choices=("staging", "prod", "canary", "qa"), default="staging",
        description="which target")}}), "additive", "enum_value_added", "also accepts qa"),
    ("default changed", lambda: make(deploy=with_options(
        build=Option(type="string", default="stable", description="build to ship"))),
     "breaking", "default_changed", "'latest' to 'stable'"),
    ("option description", lambda: make(deploy=with_options(
        build=Option(type="string", default="latest", description="which build"))),
     "cosmetic", "option_description", "--build reads differently"),
    ("input order", lambda: make(deploy={"options": dict(reversed(list(
        deploy_options().items())))}), "cosmetic", "input_order", "another order"),
    ("effects escalated", lambda: make(status={"effects": "idempotent"}), "breaking",
     "effects_escalated", "escalated from read_only to idempotent"),
    ("effects relaxed", lambda: make(deploy={"effects": "read_only"}), "additive",
     "effects_relaxed", "now read_only (was idempotent)", IDEMPOTENT),
    ("tool withheld", lambda: make(status={"effects": "withheld"}), "breaking",
     "tool_withheld", "no longer an MCP tool"),
    ("annotations riskier", lambda: make(status={"effects": "non_idempotent"}), "breaking",
     "annotations_changed", "readOnlyHint True -> False"),
    ("annotations safer", lambda: make(deploy={"effects": "read_only"}), "additive",
     "annotations_changed", "readOnlyHint False -> True", IDEMPOTENT),
    ("framework option dropped with the effects", lambda: make(deploy={"effects": "idempotent"}),
     "breaking", "option_removed", "--idempotency-key of 'deploy' was removed"),
    ("alias removed", lambda: make(status={"aliases": ()}), "breaking", "alias_removed",
     "alias st of 'status'"),
    ("alias added", lambda: make(status={"aliases": ("st", "s")}), "additive", "alias_added",
     "also called s"),
    ("short flag removed", lambda: make(deploy=with_options(
        target=Option(type="string", required=True, description="where to deploy"))),
     "breaking", "short_removed", "-t no longer means --target"),
    ("output field removed", lambda: make(status={"output": {
        "type": "object", "properties": {"target": {"type": "string"}}}}), "breaking",
     "output_field_removed", "'build' of 'status' was removed"),
    ("output field retyped", lambda: make(status={"output": {**OUTPUT, "properties": {
        **OUTPUT["properties"], "build": {"type": "integer"}}}}), "breaking",
     "output_field_retyped", "now integer (was string)"),
    ("output field added", lambda: make(status={"output": {**OUTPUT, "properties": {
        **OUTPUT["properties"], "since": {"type": "string"}}}}), "additive",
     "output_field_added", "new data field 'since'"),
    ("output undeclared", lambda: make(status={"output": None}), "breaking",
     "output_undeclared", "no longer declares an output schema"),
    ("examples", lambda: make(status={"examples": ["tool status", "tool status --target prod"]}),
     "cosmetic", "examples", "examples of 'status' changed"),
    ("program description", lambda: make(description="Ship builds safely"), "cosmetic",
     "program_description", "program's description changed"),
    ("command order", lambda: make(order=("status", "deploy")), "cosmetic", "command_order",
     "another order"),
]

_BASE = {}


def base_files(before=make):
    if before not in _BASE:
        _BASE[before] = files_of_program(before())
    return dict(_BASE[before])


@pytest.mark.parametrize("after, kind, rule, words, before",
                         [(case + (make,))[1:6] for case in CASES],
                         ids=[case[0] for case in CASES])
def test_each_rule_classifies_its_change_with_a_reason(after, kind, rule, words, before):
    review = review_files(base_files(before), files_of_program(after()))
    hits = [change for change in review.changes if change.rule == rule]
    assert hits, [change.to_dict() for change in review.changes]
    assert hits[0].kind == kind and words in hits[0].reason, hits[0].to_dict()
    if kind != "breaking":       # nothing else in the pair breaks a caller
        assert not review.breaking, [change.to_dict() for change in review.breaking]
    if kind == "cosmetic":
        assert not review.additive
    assert review.changes[0].kind == max((c.kind for c in review.changes),
                                         key=["cosmetic", "additive", "breaking"].index)


def test_an_example_whose_exit_code_changed_is_breaking():
    old, new = base_files(), base_files()
    old["diffs.json"] = json.dumps([{"command": "status", "example": "tool status",
                                     "status": "equal", "exit": 0}])
    new["diffs.json"] = json.dumps([{"command": "status", "example": "tool status",
                                     "status": "equal", "exit": 3}])
    [change] = review_files(old, new).changes
    assert (change.kind, change.rule) == ("breaking", "example_exit")
    assert "'tool status' exited 0, now 3" in change.reason


def test_a_renamed_option_is_one_breaking_change_not_also_an_addition():
    after = make(deploy=with_options(compression=None, codec=Option(
        type="enum", choices=("gzip", "zstd"), default="gzip", description="how to pack")))
    review = review_files(base_files(), files_of_program(after))
    assert [(c.kind, c.rule) for c in review.changes] == [("breaking", "option_renamed")]
    assert review.changes[0].before == "--compression" and review.changes[0].after == "--codec"


def test_the_table_covers_twenty_rules():
    assert len({case[3] for case in CASES} | {"example_exit"}) >= 20


@pytest.mark.parametrize("old, new, bump", [
    ("1.4.2", "2.0.0", True), ("1.4.2", "1.5.0", False), ("0.3.1", "0.4.0", True),
    ("0.3.1", "0.3.2", False), ("v1.0", "v2.0", True), ("nightly", "2.0.0", False)])
def test_major_bump_reads_semver_and_the_zero_major_as_cargo_does(old, new, bump):
    assert major_bump(old, new) is bump


def test_review_verdict_blocks_breaking_changes_without_a_major_bump():
    breaking = review_files(base_files(), files_of_program(make(drop=("status",))))
    assert breaking.blocked and breaking.to_dict()["counts"]["breaking"] == 1
    bumped = review_files(base_files(), files_of_program(make("2.0.0", drop=("status",))))
    assert bumped.breaking and not bumped.blocked
    additive = review_files(base_files(), files_of_program(make(extra=[LOGS])))
    assert not additive.blocked and additive.additive


# --- burgee diff --------------------------------------------------------------------------------

PROGRAM = '''
from workbench import Command, Option, Program

def run(ctx):
    return {"ok": True}

program = Program(name="tool", version="VERSION", description="Ships builds", commands=[
    Command(name="deploy", description="Deploy a build", effects="non_idempotent",
            options={OPTION: Option(type="enum", choices=("gzip", "zstd"), default="gzip",
                                    description="how to pack")}, run=run),
])
'''


def write(path, version="1.0.0", option="compression"):
    path.write_text(PROGRAM.replace("VERSION", version).replace("OPTION", repr(option)),
                    encoding="utf-8")


def burgee(*argv, cwd):
    done = subprocess.run([sys.executable, "-m", "workbench.cli", *argv], capture_output=True,
                          text=True, timeout=120, cwd=cwd, env={**os.environ, "PYTHONPATH": ROOT})
    return done.returncode, done.stdout, done.stderr


@pytest.mark.slow
def test_burgee_diff_of_two_files_names_the_rename_as_text_and_as_data(tmp_path):
    write(tmp_path / "old.py")
    write(tmp_path / "new.py", option="codec")
    code, out, err = burgee("diff", "old.py", "new.py", cwd=tmp_path)
    assert code == 0, err
    assert "verdict: breaking changes without a major version bump" in out
    assert "option_renamed" in out and "looks renamed to --codec" in out
    code, out, _ = burgee("diff", "old.py", "new.py", "--json", cwd=tmp_path)
    doc = json.loads(out)
    assert code == 0 and doc["ok"] and doc["data"]["blocked"] is True
    assert doc["data"]["changes"][0]["rule"] == "option_renamed"
    code, out, _ = burgee("diff", "old.py", "new.py", "--check", "--json", cwd=tmp_path)
    doc = json.loads(out)
    assert code == 1 and doc["error"]["code"] == "breaking_change"
    assert doc["error"]["review"]["counts"]["breaking"] == 1


@pytest.mark.slow
def test_burgee_diff_reads_git_revisions_and_snapshot_folders(tmp_path):
    def git(*argv):
        subprocess.run(["git", *argv], cwd=tmp_path, check=True, capture_output=True,
                       env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    app = tmp_path / "app.py"
    write(app)
    git("init", "-q")
    git("add", "app.py")
    git("commit", "-qm", "one")
    write(app, version="2.0.0", option="codec")
    code, out, err = burgee("diff", "HEAD:app.py", "app.py", "--check", "--json", cwd=tmp_path)
    doc = json.loads(out)
    assert code == 0 and doc["data"]["major_bump"] and doc["data"]["counts"]["breaking"] == 1, \
        out + err
    assert not [name for name in os.listdir(tmp_path) if name.startswith(".burgee-diff-")]

    folder = tmp_path / "snap"
    for rel, text in files_of_program(make()).items():
        target = folder / "tool" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    git("add", "snap")
    git("commit", "-qm", "snap")
    code, out, err = burgee("diff", "HEAD:snap/tool", "snap", "--json", cwd=tmp_path)
    doc = json.loads(out)
    assert code == 0 and doc["data"]["changes"] == [], out + err
    code, out, err = burgee("diff", "nowhere", "snap", "--json", cwd=tmp_path)
    assert code == 3 and json.loads(out)["error"]["code"] == "bad_source"


@pytest.mark.slow
def test_burgee_diff_right_after_an_update_finds_nothing(tmp_path):
    """A snapshot folder holds measured files (tokens, problems, example runs) a program file
    does not render; their absence on one side is no difference."""
    write(tmp_path / "app.py")
    code, _, err = burgee("dev", "app.py", "--headless", "--no-check", "--update", cwd=tmp_path)
    assert code == 0, err
    folder = tmp_path / ".burgee" / "snapshots" / "tool"
    for old, new in ((str(folder), "app.py"), ("app.py", str(folder))):
        code, out, err = burgee("diff", old, new, cwd=tmp_path)
        assert code == 0 and out.splitlines()[-1] == "no contract change", out + err
        doc = json.loads(burgee("diff", old, new, "--json", cwd=tmp_path)[1])
        assert doc["data"]["changes"] == [] and doc["data"]["unexplained"] == []
