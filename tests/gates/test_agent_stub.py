"""The typed stub for agent authors is generated from the API registry and never drifts."""

from __future__ import annotations

from pibench_tui.sandbox.stub import STUB_PATH, render_stub


def test_committed_stub_equals_the_registry():
    """examples/stubs/pibench_agent.pyi is exactly what the API registry renders today: adding,
    removing or re-documenting an API call without regenerating the stub fails here
    (fix: ``python -m pibench_tui.sandbox.stub``)."""
    assert STUB_PATH.read_text(encoding="utf-8") == render_stub()


def test_stub_names_every_call_of_every_namespace():
    """Each namespace of the registry is a module-level name of the stub, and each of its calls
    a method with the registry's parameter names."""
    from world.api import API_CALLS

    text = render_stub()
    for ns, calls in API_CALLS.items():
        assert f"\n{ns}: _{ns.capitalize()}\n" in text
        for name, spec in calls.items():
            params = "".join(f", {p}: Any" for p, _ in spec.params)
            assert f"    def {name}(self{params}" in text


def test_check_says_whether_the_stub_matches(tmp_path, capsys):
    """``--check`` exits 0 and says so when the stub matches, 1 naming the file when it is
    stale (a new contributor can tell the gate ran), and writes nothing either way."""
    from pibench_tui.sandbox.stub import main

    fresh, stale = tmp_path / "fresh.pyi", tmp_path / "stale.pyi"
    fresh.write_text(render_stub(), encoding="utf-8")
    stale.write_text("# old\n", encoding="utf-8")
    assert main(["--check", "--out", str(fresh)]) == 0
    assert "matches the API" in capsys.readouterr().out
    assert main(["--check", "--out", str(stale)]) == 1
    assert str(stale) in capsys.readouterr().err
    assert stale.read_text(encoding="utf-8") == "# old\n"
