"""`pibench report --json/--html PATH` checks that PATH can be written before it reads a single
run: a missing folder (or a file where the folder should be) is a usage error, exit 2, with a
message naming the option, the path and the folder, no report printed and no file left (it
used to print the whole report, then fail with exit 1)."""

from __future__ import annotations

import pytest

from tests.cli.conftest import pibench


@pytest.fixture(scope="module")
def policy_json(tmp_path_factory):
    """A `pibench run --json` file of one short career."""
    path = tmp_path_factory.mktemp("pol") / "nothing.json"
    run = pibench("run", "do-nothing", "--scenario", "short-12", "--seeds", "101", "--json", str(path))
    assert run.returncode == 0, run.stderr
    return path


@pytest.mark.parametrize("flag", ["--json", "--html"])
@pytest.mark.parametrize("where", ["missing folder", "file as folder"])
def test_an_unwritable_report_path_is_refused_before_the_work(tmp_path, policy_json, flag, where):
    """Exit 2 and one error line (option, path, the folder that is not there); stdout empty;
    nothing written anywhere under tmp_path."""
    if where == "file as folder":
        (tmp_path / "plain").write_text("a file")
        target = tmp_path / "plain" / "report.out"
    else:
        target = tmp_path / "missing" / "report.out"
    before = sorted(tmp_path.rglob("*"))
    proc = pibench("report", str(policy_json), "--no-simulate", flag, str(target))
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert f"{flag} {target}: there is no folder {target.parent}" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert sorted(tmp_path.rglob("*")) == before


def test_a_writable_report_path_is_written_whole(tmp_path, policy_json):
    """The same command to a folder that exists writes the JSON (and no temporary file stays)."""
    target = tmp_path / "r.json"
    proc = pibench("report", str(policy_json), "--no-simulate", "--json", str(target))
    assert proc.returncode == 0, proc.stderr
    assert target.read_text().startswith("{") and [p.name for p in tmp_path.iterdir()] == ["r.json"]
