"""Sealed seeds through the policy front ends (issue 25 §1 and §3, QA 25-28 F2 and F12):
``pibench run``/``compare --seeds @FILE`` name every career by ``sealed:<commitment
prefix>`` in folders, files and output, never by its seed; ``pibench report`` pairs sealed
policy and agent careers of one seal by commitment; and a seal file's seeds are numbered
the same way by every command."""

from __future__ import annotations

import json
from pathlib import Path

from pibench_tui.cli import main as pibench_main
from pibench_tui.cli.seeds import read_seal


def _seal(tmp_path: Path, count: int, capsys) -> tuple[Path, list[dict], str]:
    path = tmp_path / "seal.json"
    assert pibench_main(["seal", "--count", str(count), "--out", str(path)]) == 0
    return path, read_seal(path)["seeds"], capsys.readouterr().out


def test_a_changed_seed_is_named_by_the_number_pibench_seal_printed_for_it(tmp_path, capsys):
    """`pibench seal` prints seed #0 first; when that seed is edited in the file, every
    command that reads the seal (`pibench unseal`, `--seeds @FILE`; `report --seal` and
    `replay --seal` read it the same way) names it seed #0 (before: seed #1, the number
    `pibench seal` gave the next seed)."""
    seal, rows, printed = _seal(tmp_path, 2, capsys)
    assert f"seed #0  commitment {rows[0]['commitment']}" in printed
    data = json.loads(seal.read_text())
    data["seeds"][0]["seed"] = 101
    seal.write_text(json.dumps(data))
    assert pibench_main(["unseal", str(seal)]) == 1
    err = capsys.readouterr().err
    assert "seed #0 does not match its commitment" in err, err
    assert "seed #1" not in err
    assert pibench_main(["run", "baseline", "--scenario", "short-12", "--seeds", f"@{seal}"]) == 2
    err = capsys.readouterr().err
    assert "seed #0 does not match its commitment" in err, err
