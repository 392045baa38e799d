"""A save whose world parameters differ from the bundled scenario it names is reported as a
modified scenario, never as "integrity ok" (issue 10 §5)."""

from __future__ import annotations

import dataclasses
import io
from types import SimpleNamespace

from saves import SaveStore
from saves.cli import cmd_show
from scenarios import load_scenario, modified_scenario
from world.engine import World


def test_a_rebuilt_budget_saved_as_standard_is_a_modified_scenario(tmp_path):
    """`saves show` passes the real standard save and fails the $60M one, naming the field."""
    store = SaveStore(tmp_path)
    sc = load_scenario("standard")
    store.save("plain", World(sc.config, sc.seed), scenario=sc, career="plain")
    cfg = dataclasses.replace(sc.config, start_budget=60_000_000.0)
    store.save("rich", World(cfg, sc.seed), scenario=dataclasses.replace(sc, config=cfg), career="rich")
    results = {}
    for name in ("plain", "rich"):
        out, err = io.StringIO(), io.StringIO()
        code = cmd_show(SimpleNamespace(saves=str(tmp_path), name=name, json=False), out, err)
        results[name] = (code, out.getvalue())
    assert results["plain"][0] == 0 and "integrity" in results["plain"][1] and "FAILED" not in results["plain"][1]
    assert results["rich"][0] == 1
    assert "modified scenario" in results["rich"][1] and "start_budget" in results["rich"][1]
    assert modified_scenario("standard", cfg.to_dict()) == ["start_budget"]
