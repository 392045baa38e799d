"""Run labels and scenario names as folder names (pibench_tui/harness/rundir.py): one-to-one,
so two different labels never share a run directory."""

from __future__ import annotations

import json
import sys
from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pibench_tui.cli.command import main as pibench_main
from pibench_tui.harness.rundir import career_dir, safe_name
from pibench_tui.sweep.runs import write_run

LABELS = ["a/b", "a\nb", "a-b", "a b", "a%2Fb", "a%b", ".", "..", "", "%", "-x", "x.", "x-", "org/model:7b", "ü", "A"]


def test_labels_map_to_distinct_single_folders_and_plain_ones_stay():
    """Every label of a list of near-misses ('a/b', 'a\\nb', 'a-b', 'a b', '.', '', ...) gets a
    folder of its own, one path component, never '.' or '..'; a label of letters, digits and
    '. _ + -' (not starting with '-' or '.', not ending with '.') is its own folder."""
    names = [safe_name(t) for t in LABELS]
    assert len(set(names)) == len(LABELS), dict(zip(LABELS, names, strict=True))
    dirs = {career_dir("/runs", t, "standard", 101) for t in LABELS}
    assert len(dirs) == len(LABELS)
    for n in names:
        assert n and "/" not in n and "\\" not in n and n not in (".", "..") and "\n" not in n
    for plain in ("gpt-4o", "baseline", "Llama-3.1_8B+lora", "x-", "a.b"):
        assert safe_name(plain) == plain
    assert safe_name("org/model:7b") == "org%2Fmodel%3A7b"


@given(st.text())
def test_a_folder_name_gives_back_its_label(text):
    """The name decodes (as a URL's percent escapes) to the label it came from: no two labels
    share one."""
    name = safe_name(text)
    assert set(name) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-%")
    assert name not in (".", "..") and not name.startswith(("-", "."))
    assert (unquote(name, errors="surrogatepass") if name != "%" else "") == text


def test_agent_runs_of_labels_a_slash_b_and_a_newline_b_keep_separate_folders(tmp_path, capsys):
    """`pibench agent --label a/b` and `--label 'a\\nb'` (the same model, scenario and seed) write
    two run directories, each result naming its own label; the second is not taken for the
    first's finished run. A folder whose result names another label (two labels differing only
    in case on a case-insensitive file system) is refused, not reused."""
    out = tmp_path / "runs"
    bad_cmd = f"{sys.executable} -c 'import sys; sys.exit(3)'"
    base = [
        "agent",
        "--model",
        "m",
        "--command",
        bad_cmd,
        "--scenario",
        "short-12",
        "--out",
        str(out),
        "--retries",
        "0",
        "--no-endpoint-check",
    ]
    for label in ("a/b", "a\nb"):
        assert pibench_main([*base, "--label", label]) == 1  # every call failed; the career ran to its end
    capsys.readouterr()
    results = {p.parent.parent.name: json.loads(p.read_text()) for p in out.glob("*/*/result.json")}
    assert {k: r["label"] for k, r in results.items()} == {"a%2Fb": "a/b", "a%0Ab": "a\nb"}
    other = out / "a%2Fb" / "short-12-101" / "result.json"
    other.write_text(json.dumps({**results["a%2Fb"], "label": "A/B"}))
    assert pibench_main([*base, "--label", "a/b"]) == 1
    err = capsys.readouterr().err
    assert "holds the run of label 'A/B', not 'a/b'" in err and "it was not touched" in err
    assert json.loads(other.read_text())["label"] == "A/B"


def test_save_runs_refuses_a_folder_holding_another_labels_run(tmp_path):
    """`run --save-runs` writes a career again over the same label's run, but refuses (naming
    both) a folder whose result names another label, and leaves that run as it was."""
    run = {"result": {"seed": 101}, "actions": [], "months_jsonl": "", "eval_json": "{}"}
    d = write_run(tmp_path, "baseline", "standard", run)
    assert write_run(tmp_path, "baseline", "standard", run) == d
    (d / "result.json").write_text(json.dumps({"seed": 101, "label": "Baseline"}))
    with pytest.raises(FileExistsError, match="holds the run of label 'Baseline', not 'baseline'"):
        write_run(tmp_path, "baseline", "standard", run)
    assert json.loads((d / "result.json").read_text())["label"] == "Baseline"


@pytest.mark.parametrize("option", ["--label", "--model"])
def test_a_label_too_long_for_a_folder_name_is_a_usage_error_before_any_career(tmp_path, capsys, option):
    """A 300-character --label, or --model (the default label), cannot name a folder (255
    bytes): before, a traceback (OSError, File name too long) after the command started;
    now exit 2 naming the limit and --label, and nothing is written."""
    names = {"--model": "m", option: "x" * 300}
    args = ["agent", *(x for kv in names.items() for x in kv), "--command", "true", "--out", str(tmp_path / "runs")]
    assert pibench_main([*args, "--no-endpoint-check"]) == 2
    err = capsys.readouterr().err
    assert "at most 255 bytes" in err and "--label" in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("where", ["out", "career"])
def test_an_out_path_that_is_a_file_is_a_usage_error_before_any_career(tmp_path, capsys, where):
    """`pibench agent --out F` with F a regular file, or with a file where a career's run
    directory goes (OUT/LABEL/SCENARIO-SEED): before, the career started and failed with
    a raw NotADirectoryError / FileExistsError and the advice to run the same command
    again (which fails the same way); now exit 2 before any career, naming the file and
    saying a folder is needed, and the file is left as it was."""
    out = tmp_path / "runs"
    if where == "out":
        blocker = out
        blocker.write_text("mine")
    else:
        blocker = out / "m" / "short-12-101"
        blocker.parent.mkdir(parents=True)
        blocker.write_text("mine")
    args = ["agent", "--model", "m", "--command", "true", "--scenario", "short-12", "--out", str(out)]
    assert pibench_main([*args, "--no-endpoint-check"]) == 2
    err = capsys.readouterr().err
    assert str(blocker) in err and "not a folder" in err and "Errno" not in err
    assert blocker.read_text() == "mine"
