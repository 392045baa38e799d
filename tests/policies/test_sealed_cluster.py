"""Sealed seeds never leave for a Dask cluster unless the evaluator says so (issue 25 §3,
issue 28: the seal hides seeds from everything outside the evaluator's process): a worker must
know a seed to play its career, so ``--cluster`` with ``--seeds @FILE`` is refused, naming
both flags, unless ``--send-seeds-to-cluster`` is given; with it the rows are those of
``--jobs 1``. Mounted through the ``pibench`` command on an in-process Dask cluster."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from policies_helpers import cli


@pytest.fixture
def seal_file(tmp_path: Path) -> Path:
    """A seal file of two secret seeds (``pibench seal``)."""
    path = tmp_path / "seal.json"
    assert cli(["seal", "--count", "2", "--out", str(path)]) == 0
    return path


def test_sealed_seeds_on_a_cluster_are_refused_without_the_opt_in(tmp_path, dask_cluster, seal_file, capsys):
    """`pibench run baseline --seeds @FILE --cluster ADDR` exits 2 before any career is
    played (no --json written) with a message naming --cluster, sealed seeds and
    --send-seeds-to-cluster (before: exit 0, every sealed seed sent to the workers)."""
    out = tmp_path / "r.json"
    argv = ["run", "baseline", "--scenario", "short-12", "--seeds", f"@{seal_file}"]
    rc = cli([*argv, "--cluster", dask_cluster.scheduler_address, "--json", str(out)])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "--cluster" in err and "sealed seeds" in err and "--send-seeds-to-cluster" in err, err
    assert not out.exists()


def test_sealed_seeds_go_to_a_cluster_with_the_opt_in(tmp_path, dask_cluster, seal_file, capsys):
    """With --send-seeds-to-cluster the sealed run plays on the cluster and writes the JSON
    of --jobs 1 (rows keyed by commitment, no seed)."""
    local, dask = tmp_path / "local.json", tmp_path / "dask.json"
    argv = ["run", "baseline", "--scenario", "short-12", "--seeds", f"@{seal_file}"]
    assert cli([*argv, "--json", str(local)]) == 0
    assert (
        cli([*argv, "--cluster", dask_cluster.scheduler_address, "--send-seeds-to-cluster", "--json", str(dask)]) == 0
    )
    data = json.loads(dask.read_text())
    assert data == json.loads(local.read_text())
    assert data["seeds"] is None and len(data["seed_commitments"]) == 2


def test_a_sealed_pivot_build_on_a_cluster_is_refused_without_the_opt_in(tmp_path, seal_file, capsys):
    """`pibench pivots build --seeds @FILE --seal DIR --cluster ADDR` exits 2 naming both
    flags before it builds anything (before: the build sent the sealed seeds to the cluster)."""
    argv = ["pivots", "build", "--preset", "smoke", "--seeds", f"@{seal_file}", "--seal", str(tmp_path / "private")]
    rc = cli([*argv, "--out", str(tmp_path / "set"), "--cluster", "tcp://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "--cluster" in err and "--send-seeds-to-cluster" in err, err
    assert not (tmp_path / "set").exists() and not (tmp_path / "private").exists()
