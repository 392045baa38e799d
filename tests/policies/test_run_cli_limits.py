"""Limits of the policy commands: the seed count is capped before any list is built, bad
ranges and job counts are usage errors, compare needs two policies, titles stay one line."""

from __future__ import annotations

import pytest

from pibench_tui.cli import main
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
    assert main(["compare", "do-nothing", "do-nothing-x", "--seeds", "1"]) == 1  # unknown policy: no run
    capsys.readouterr()
    assert main(["compare", "do-nothing", "hire-max", "--scenario", "short-12", "--seeds", "1,2"]) == 0
    out = capsys.readouterr().out
    title = "do-nothing vs hire-max on short-12 (2 seeds); ratio = (Impact+1)/(do-nothing Impact+1)"
    assert title in out.splitlines()
