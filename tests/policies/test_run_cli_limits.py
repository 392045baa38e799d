"""Limits of the policy commands: the seed count is capped before any list is built, bad
ranges and job counts are usage errors, compare needs two policies, titles stay one line."""

from __future__ import annotations

import pytest

from pibench_tui.cli.command import main
from world.runner import MAX_SEEDS, parse_seeds


@pytest.mark.parametrize(
    "seeds,message",
    [
        ("1-100000000", "at most 100,000"),
        ("5-1", "ends below its start"),
        ("1,,2", "empty item"),
        (f"1-{MAX_SEEDS},0", "at most 100,000"),
    ],
)
def test_bad_seed_lists_are_usage_errors(capsys, seeds, message):
    """Seed lists that are too long, run backwards or hold an empty item are usage errors (exit 2)
    whose message says which."""
    assert main(["run", "do-nothing", "--seeds", seeds]) == 2
    assert message in capsys.readouterr().err


def test_the_cap_is_checked_before_building_the_list():
    """A range of exactly the cap is accepted, and a range far above it is refused at once with its
    size, without first building the list."""
    assert len(parse_seeds(f"1-{MAX_SEEDS}")) == MAX_SEEDS
    with pytest.raises(ValueError, match="100,000,000,000"):
        parse_seeds("1-100000000000")  # would need terabytes if built first


def test_jobs_must_be_positive(capsys):
    """``--jobs 0`` is a usage error (exit 2) saying the job count must be at least 1."""
    assert main(["run", "do-nothing", "--seeds", "1", "--jobs", "0"]) == 2
    assert "must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("policies", [["baseline"], ["baseline", "baseline"]])
def test_compare_needs_two_policies(capsys, policies):
    """``pibench compare`` with one policy, or the same one twice, is a usage error pointing to
    ``pibench run``."""
    assert main(["compare", *policies, "--seeds", "1"]) == 2
    err = capsys.readouterr().err
    assert "two or more different policies" in err and "pibench run baseline" in err


def test_compare_title_is_one_line(capsys):
    """The comparison title (policies, scenario, seed count, ratio definition) is one output line,
    and an unknown policy exits 1 before anything runs."""
    assert main(["compare", "do-nothing", "do-nothing-x", "--seeds", "1"]) == 2  # unknown policy: no run
    capsys.readouterr()
    assert main(["compare", "do-nothing", "hire-max", "--scenario", "short-12", "--seeds", "1,2"]) == 0
    out = capsys.readouterr().out
    title = "do-nothing vs hire-max on short-12 (2 seeds); ratio = (Impact+1)/(do-nothing Impact+1)"
    assert title in out.splitlines()


@pytest.mark.parametrize("command", ["run", "compare", "ablate"])
def test_policy_commands_help_describes_every_policy(command, capsys):
    """`pibench run|compare|ablate --help` names every policy the runner accepts, each with a
    line saying what it does (a policy added to world.policies without one fails here)."""
    from pibench_tui.cli.run_cmds import POLICY_SUMMARIES
    from world.policies import ALL_NAMES

    assert set(POLICY_SUMMARIES) == set(ALL_NAMES)
    assert main([command, "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the wrapping undone
    for name in ALL_NAMES:
        assert f" {name} {POLICY_SUMMARIES[name].split()[0]}" in out, name


def test_ablate_and_tune_help_format_their_variants_grid_and_seeds_from_their_homes(capsys):
    """`pibench ablate --help` lists world.runner.ablation_configs' variants; `pibench tune
    --help` gives the grid's size and the tuning seeds, from grid() and TUNING_SEEDS."""
    from pibench_tui.cli.run_cmds import TUNING_SEEDS
    from world.policies import grid
    from world.runner import ablation_configs

    assert main(["ablate", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ", ".join(ablation_configs()) in out
    assert main(["tune", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"{len(grid())} configs" in out and ", ".join(map(str, TUNING_SEEDS)) in out


def test_tune_refuses_seeds_saying_why(capsys):
    """`pibench tune --seeds 1-3` is a usage error (exit 2) from tune itself saying it plays only
    the tuning seeds and how to evaluate its pick (argparse's top-level parser used to report
    an unrecognized argument without a reason)."""
    assert main(["tune", "--seeds", "1-3"]) == 2
    err = capsys.readouterr().err
    assert "pibench tune: error: tune takes no --seeds" in err
    assert "1001, 1002" in err and "pibench run baseline-tuned" in err


def test_save_runs_in_a_file_is_refused_before_any_career(tmp_path, monkeypatch, capsys):
    """`--save-runs F` where F (or a parent of it) is a file is refused at once (exit 2), naming
    the file; it failed after the first career with a bare 'Not a directory'."""
    import pibench_tui.sweep as sweep_pkg

    played = []
    monkeypatch.setattr(sweep_pkg, "make_executor", lambda jobs=1, cluster=None: played.append(1))
    afile = tmp_path / "afile"
    afile.write_text("")
    for runs in (afile, afile / "sub"):
        assert main(["run", "baseline", "--seeds", "1", "--save-runs", str(runs)]) == 2
        assert f"{afile} is a file, not a folder" in capsys.readouterr().err
    assert played == [] and sorted(tmp_path.iterdir()) == [afile]


def test_local_pool_has_no_more_workers_than_careers(monkeypatch):
    """`--jobs 64` for 3 careers starts 3 worker processes, not 64 (a forked pool starts all
    of its workers at once)."""
    import world.runner
    from pibench_tui.sweep import Group, LocalExecutor
    from world.config import WorldConfig

    asked = []
    monkeypatch.setattr(world.runner, "run_groups", lambda work, jobs, *a, **kw: asked.append(jobs))
    groups = [Group("a", "baseline", WorldConfig(), (1, 2)), Group("b", "oracle", WorldConfig(), (3,))]
    LocalExecutor(64).run(groups, lambda *a: None)
    LocalExecutor(2).run(groups, lambda *a: None, record=True)
    assert asked == [3, 2]


def test_an_unknown_option_is_named_by_its_own_subcommand(capsys):
    """`pibench headless --bogus`, `pibench pivots build --out x --bogus`: before, argparse's
    top-level parser reported them (`usage: pibench [-h] [--version] COMMAND ...`, `pibench:
    error: ...`), hiding the subcommand's options; now the innermost subcommand's own usage
    and name (exit 2), and a bad top-level option still gets the top-level usage."""
    assert main(["headless", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert "pibench headless: error: unrecognized arguments: --bogus" in err and "--block-timeout" in err
    assert main(["pivots", "build", "--out", "x", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert "pibench pivots build: error: unrecognized arguments: --bogus" in err and "--branches" in err
    assert main(["--bogus"]) == 2
    assert "pibench: error: unrecognized arguments: --bogus" in capsys.readouterr().err
