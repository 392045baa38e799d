"""A sealed career keeps its seal through saves (issue 25 §3): `pibench headless --seeds @FILE
--save S`, then `--load S`, never shows the seed to the agent, in the report, in
--report-json, or in the replay viewer of the save."""

from __future__ import annotations

import json

from pibench_tui.cli import main as pibench_main
from pibench_tui.cli.seeds import read_seal
from tests.headless.conftest import run_pibench

#: Agent code that prints everything a finished career's calls return.
SHOW_ALL = """import json
for i in range(20):
    if lab.dashboard()['finished']:
        break
    print(json.dumps(time.next_month(), default=str))
print(json.dumps(lab.dashboard(), default=str))
print(json.dumps(time.last_report(), default=str))
"""


def test_a_sealed_career_saved_and_resumed_never_shows_its_seed(tmp_path):
    """The first session (sealed, saved at month 2) and the resumed one (`--load` without
    the seal file, to the end of the career) print no seed: not in API results, the end
    report (which names the commitment), nor --report-json (seed null, the commitment kept);
    the replay viewer's source of the save shows `sealed:<prefix>`. Before, the resumed
    session printed `short-12 (seed N)` and wrote the seed into --report-json."""
    seal = tmp_path / "seal.json"
    assert pibench_main(["seal", "--count", "1", "--out", str(seal)]) == 0
    row = read_seal(seal)["seeds"][0]
    seed, commitment = str(row["seed"]), row["commitment"]
    home = tmp_path / "home"
    first = run_pibench(
        ["headless", "--scenario", "short-12", "--seeds", f"@{seal}", "--save", "s1"], "time.next_month()\n", home=home
    )
    assert first.returncode == 0, first.stderr
    assert seed not in first.stdout + first.stderr
    report = tmp_path / "rep.json"
    second = run_pibench(["headless", "--load", "s1", "--report-json", str(report)], SHOW_ALL, home=home)
    assert second.returncode == 0, second.stderr
    assert "month reached   12 of 12" in second.stdout
    assert seed not in second.stdout + second.stderr, "the resumed session showed the seed"
    assert f"commitment {commitment}" in second.stdout
    data = json.loads(report.read_text())
    assert data["seed"] is None and data["seed_commitment"] == commitment
    assert seed not in report.read_text()
    from pibench_tui.tui.replay import open_save

    source = open_save("s1", str(home / "saves"))
    assert source.seed_text == f"sealed:{commitment[:12]}"


def test_saves_carry_the_config_hash_of_their_scenario(tmp_path):
    """A save records its config's content hash beside the config (a scenario is its
    content): equal to WorldConfig.content_hash() of the world saved, and to the bundled
    scenario's hash for an unmodified bundled scenario."""
    from saves import SaveStore
    from scenarios import bundled_hash, load_scenario
    from world.engine import World

    scen = load_scenario("short-12")
    store = SaveStore(tmp_path / "saves")
    store.save("c1", World(scen.config, 7), scenario=scen)
    _world, record = store.load_world("c1")
    assert record.scenario["config_hash"] == scen.config.content_hash() == bundled_hash("short-12")


def test_the_tui_keeps_a_sealed_save_sealed(tmp_path):
    """`pibench play --load` of a sealed career's save shows `sealed:<prefix>` instead of the
    seed in its header, and saving it again keeps the commitment (before: the TUI's scenario
    was the bare name, so its saves dropped the seal)."""
    from pibench_tui.tui.app import make_app

    seal = tmp_path / "seal.json"
    assert pibench_main(["seal", "--count", "1", "--out", str(seal)]) == 0
    row = read_seal(seal)["seeds"][0]
    home = tmp_path / "home"
    args = ["headless", "--scenario", "short-12", "--seeds", f"@{seal}", "--save", "s1"]
    played = run_pibench(args, "time.next_month()\n", home=home)
    assert played.returncode == 0, played.stdout + played.stderr
    app = make_app(load="s1", saves_dir=str(home / "saves"))
    assert app.game.seed_text == f"sealed:{row['commitment'][:12]}"
    from saves import SaveStore

    store = SaveStore(home / "saves")
    app.game.save("s2", store)
    _world, record = store.load_world("s2")
    assert record.scenario["seed_commitment"] == row["commitment"]


def test_saves_listings_withhold_a_sealed_careers_seed(tmp_path):
    """`pibench saves list` (table and --json) and `pibench saves show` of a sealed career's
    saves show `sealed:<prefix>` instead of the seed (before: the seed was printed)."""
    seal = tmp_path / "seal.json"
    assert pibench_main(["seal", "--count", "1", "--out", str(seal)]) == 0
    row = read_seal(seal)["seeds"][0]
    home = tmp_path / "home"
    args = ["headless", "--scenario", "short-12", "--seeds", f"@{seal}", "--save", "s1"]
    played = run_pibench(args, "time.next_month()\ntime.next_month()\n", home=home)
    assert played.returncode == 0, played.stdout + played.stderr
    for cmd in (
        ["saves", "list"],
        ["saves", "list", "--json"],
        ["saves", "show", "s1"],
        ["saves", "show", "s1", "--json"],
    ):
        run = run_pibench(cmd, home=home)
        assert run.returncode == 0, run.stderr
        assert str(row["seed"]) not in run.stdout + run.stderr, cmd
        assert f"sealed:{row['commitment'][:12]}" in run.stdout or '"seed": null' in run.stdout, (cmd, run.stdout)


def test_exporting_a_sealed_save_needs_with_seed_because_the_file_holds_the_seed(tmp_path, capsys):
    """QA6 F7d: `pibench saves export` of a sealed career's save wrote the secret seed in clear
    (to a file or stdout) without a word, while `saves list`/`show` print only
    `sealed:<prefix>`. Now it is refused (exit 1, nothing written, the reason and the option
    named) unless --with-seed is given; with it the file holds the seed (what is documented),
    and it imports back."""
    seal = tmp_path / "seal.json"
    assert pibench_main(["seal", "--count", "1", "--out", str(seal)]) == 0
    seed = str(read_seal(seal)["seeds"][0]["seed"])
    home = tmp_path / "home"
    played = run_pibench(
        ["headless", "--scenario", "short-12", "--seeds", f"@{seal}", "--save", "s1"], "time.next_month()\n", home=home
    )
    assert played.returncode == 0, played.stderr
    saves, dest = str(home / "saves"), tmp_path / "ex.json"
    capsys.readouterr()
    for target in (str(dest), "-"):
        assert pibench_main(["saves", "export", "--saves", saves, "s1", target]) == 1
        printed = capsys.readouterr()
        assert seed not in printed.out + printed.err
        assert "sealed career" in printed.err and "--with-seed" in printed.err
    assert not dest.exists()
    assert pibench_main(["saves", "export", "--saves", saves, "s1", str(dest), "--with-seed"]) == 0
    assert seed in dest.read_text()
    assert pibench_main(["saves", "import", "--saves", str(tmp_path / "other"), str(dest)]) == 0
