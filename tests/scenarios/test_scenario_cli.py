"""``pibench scenarios list|show`` (scenarios/cli.py): output, exit codes, and ``--toml``
output that reads back to the same scenario."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from scenarios import bundled_names, load_scenario, read_scenario_text
from scenarios.cli import add_scenarios_parser, cmd_list, cmd_show, scenario_toml


def run(argv: list[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="pibench")
    add_scenarios_parser(parser.add_subparsers())
    args = parser.parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    return args.func(args, out, err), out.getvalue(), err.getvalue()


def test_list_shows_every_bundled_scenario_with_seed_and_horizon():
    """``scenarios list`` names every bundled scenario with its horizon, and writes nothing to
    stderr."""
    code, out, err = run(["scenarios", "list"])
    assert code == 0 and err == ""
    for name in bundled_names():
        assert name in out
    assert "short-12" in out and " 12 " in out


def test_list_json():
    """``scenarios list --json`` is valid JSON naming exactly the bundled scenarios."""
    code, out, _ = run(["scenarios", "list", "--json"])
    data = json.loads(out)
    assert code == 0 and {d["name"] for d in data} == set(bundled_names())


def test_show_lists_the_changes_from_the_default_world():
    """``scenarios show`` lists each changed parameter next to its default, and the scenario's
    seed."""
    code, out, _ = run(["scenarios", "show", "tutorial"])
    assert code == 0
    assert "start_budget = 900000.0" in out and "default 600000.0" in out and "seed         7" in out


def test_show_seed_override_and_full_listing():
    """``--seed`` overrides the scenario's seed and ``--full`` lists every parameter with its unit
    and MECHANICS section."""
    code, out, _ = run(["scenarios", "show", "mid-30", "--seed", "8", "--full"])
    assert code == 0 and "seed         8" in out
    assert "pay_phd = 3200.0" in out and "USD/month" in out and "§2" in out


def test_show_unknown_or_invalid_scenario_fails_with_the_message(tmp_path):
    """Showing an unknown name or an invalid file exits 2 (a usage error) with an ``error:``
    line that lists the bundled scenarios or names the bad key and its range."""
    code, out, err = run(["scenarios", "show", "nope"])
    assert code == 2 and err.startswith("error:") and "bundled scenarios" in err
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\nmonths = 0\n')
    code, out, err = run(["scenarios", "show", str(bad)])
    assert code == 2 and "months" in err and "out of range" in err


@pytest.mark.parametrize("name", bundled_names())
def test_toml_output_reads_back_to_the_same_scenario(name):
    """`show --toml` is a starting point for your own file: it reproduces the scenario."""
    scen = load_scenario(name)
    again = read_scenario_text(scenario_toml(scen))
    assert (again.name, again.description, again.seed, again.config) == (
        scen.name,
        scen.description,
        scen.seed,
        scen.config,
    )


def test_show_json():
    """``scenarios show --json`` gives the config and, per changed key, its new value."""
    code, out, _ = run(["scenarios", "show", "no-scooping", "--json"])
    data = json.loads(out)
    assert code == 0 and data["config"]["no_scooping"] is True and data["changes"]["no_scooping"]["value"] is True


def test_functions_work_with_a_bare_namespace():
    """The CLI owner may build the Namespace itself: missing optional attributes default."""
    out = io.StringIO()
    assert cmd_list(argparse.Namespace(), out, io.StringIO()) == 0
    assert cmd_show(argparse.Namespace(name="standard"), out, io.StringIO()) == 0
