"""Scenario files with every kind of mistake are refused, each problem naming its key (and,
for unknown keys, listing the valid ones); good files load with their overrides."""

from __future__ import annotations

import dataclasses

import pytest

from scenarios import ScenarioError, load_scenario, read_scenario_file, read_scenario_text
from world.config import WorldConfig

VALID_TOP = "name, description, seed, months, start_budget, frozen_field, no_scooping, unlimited_attention, world"


def refuse(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        read_scenario_text(text, "my.toml")
    return info.value


def test_a_good_file_with_partial_table_overrides(tmp_path):
    """A valid file's top-level and ``[world]`` overrides apply; a partial table (one pool, one
    hotness, one venue) is merged into the default, not replacing it."""
    path = tmp_path / "mine.toml"
    path.write_text(
        'name = "mine"\ndescription = "Mine — ✓"\nseed = 42\nmonths = 24\nstart_budget = 750000\n'
        "[world]\nservice_tax_hours = 6\n[world.pools.elite]\nvolume = 3.0\n"
        "[world.initial_hotness]\nreasoning = 3.5\n[world.venues.NAIC]\ndeadlines = [4, 10]\n",
        encoding="utf-8",
    )
    scen = load_scenario(str(path))
    cfg = scen.config
    assert (scen.name, scen.seed, cfg.months, cfg.start_budget) == ("mine", 42, 24, 750000.0)
    assert isinstance(cfg.start_budget, float) and cfg.service_tax_hours == 6.0
    assert cfg.pools["elite"]["volume"] == 3.0
    assert cfg.pools["elite"]["ability_mean"] == WorldConfig().pools["elite"]["ability_mean"]  # merged, not replaced
    assert cfg.initial_hotness["reasoning"] == 3.5 and cfg.initial_hotness["theory"] == 0.5
    assert cfg.venues["NAIC"]["deadlines"] == [4, 10]
    assert scen.source == str(path)


def test_minimal_file_gets_the_default_seed():
    """A file with only a name gets the default seed, the default world and an empty description."""
    scen = read_scenario_text('name = "tiny"\n')
    assert scen.seed == 1001 and scen.config == WorldConfig() and scen.description == ""


@pytest.mark.parametrize(
    "text, key, words",
    [
        # unknown keys (with a suggestion and the list of valid keys)
        ('name = "x"\nsede = 3\n', "sede", ["did you mean 'seed'", VALID_TOP]),
        ('name = "x"\n[wrld]\nmonths = 3\n', "wrld", ["did you mean 'world'", VALID_TOP]),
        (
            'name = "x"\n[world]\npay_phdd = 1.0\n',
            "world.pay_phdd",
            ["did you mean 'pay_phd'", "valid parameters:", "pay_postdoc"],
        ),
        (
            'name = "x"\n[world.pools.elite]\nvolum = 1.0\n',
            "world.pools.elite.volum",
            ["did you mean 'volume'", "ability_mean"],
        ),
        (
            'name = "x"\n[world.pools.royal]\nvolume = 1.0\n',
            "world.pools.royal",
            ["elite, international, nontraditional, local"],
        ),
        ('name = "x"\n[world.initial_hotness]\nquantum = 1.0\n', "world.initial_hotness.quantum", ["reasoning"]),
        # wrong types
        ('name = "x"\nmonths = 12.5\n', "months", ["must be an integer", "12.5"]),
        ('name = "x"\nmonths = "12"\n', "months", ["must be an integer", "text"]),
        ('name = "x"\nfrozen_field = 1\n', "frozen_field", ["must be true or false"]),
        ('name = "x"\nstart_budget = true\n', "start_budget", ["must be a number", "boolean"]),
        ('name = "x"\n[world]\nhot_max = "hot"\n', "world.hot_max", ["must be a number", "text"]),
        ('name = "x"\n[world]\npools = 3\n', "world.pools", ["must be a table"]),
        ('name = "x"\n[world.hot_max]\na = 1\n', "world.hot_max", ["must be a number", "table"]),
        (
            'name = "x"\n[world.venues.NAIC]\ndeadlines = [3, "x"]\n',
            "world.venues.NAIC.deadlines[1]",
            ["must be an integer"],
        ),
        ('name = "x"\n[world.venues.NAIC]\ndeadlines = 3\n', "world.venues.NAIC.deadlines", ["must be an array"]),
        ('name = "x"\n[world.agencies.FEL]\nonce = "yes"\n', "world.agencies.FEL.once", ["must be true or false"]),
        ('name = "x"\nworld = 3\n', "world", ["must be a table"]),
        ('name = "x"\nseed = 1.5\n', "seed", ["must be an integer"]),
        ('name = "x"\nseed = "101"\n', "seed", ["must be an integer"]),
        ('name = "x"\ndescription = 5\n', "description", ["must be text"]),
        ("name = 5\n", "name", ["must be non-empty text"]),
        ('name = ""\n', "name", ["must be non-empty text"]),
        ('description = "no name"\n', "name", ["missing"]),
        ('name = "x"\nmonths = 2023-01-01\n', "months", ["must be an integer"]),
        # out of range (WorldConfig metadata min/max)
        ('name = "x"\nmonths = 0\n', "months", ["out of range", "between 1 and 240"]),
        ('name = "x"\nmonths = 1000\n', "months", ["out of range"]),
        ('name = "x"\nstart_budget = -1\n', "start_budget", ["out of range", "USD"]),
        ('name = "x"\n[world]\nboom_p = 1.5\n', "world.boom_p", ["out of range", "between 0 and 1"]),
        ('name = "x"\n[world]\nhot_max = inf\n', "world.hot_max", ["finite"]),
        ('name = "x"\n[world]\nhot_max = nan\n', "world.hot_max", ["finite"]),
        ('name = "x"\nseed = -3\n', "seed", ["out of range"]),
        ('name = "x"\nseed = 9223372036854775807\nmonths = 0\n', "months", ["out of range"]),
        # set twice
        ('name = "x"\nmonths = 12\n[world]\nmonths = 30\n', "world.months", ["set twice"]),
    ],
)
def test_each_mistake_is_refused_naming_its_key(text, key, words):
    """Each kind of mistake (unknown key, wrong type, out of range, set twice) is refused with a
    problem that names its key and says what is valid, under the file's name."""
    err = refuse(text)
    problem = next((p for p in err.problems if p.startswith(key + ":") or p.startswith(key)), None)
    assert problem is not None, f"no problem names {key!r}: {err.problems}"
    for w in words:
        assert w in problem, f"{w!r} not in {problem!r}"
    assert str(err).startswith("my.toml")


def test_cross_field_rules_of_world_config_validate_are_reported():
    """Values each in range but refused by WorldConfig.validate() still fail, with its message."""
    err = refuse('name = "x"\n[world.initial_hotness]\nreasoning = -1.0\n')
    assert "initial_hotness" in str(err) and "positive" in str(err)


def test_all_problems_are_reported_at_once():
    """A file with five mistakes gets one error listing all five, not just the first."""
    err = refuse('name = 3\nsede = 1\nmonths = 0\n[world]\nzzz = 1\nboom_p = "a"\n')
    assert len(err.problems) == 5
    assert "5 problems" in str(err)


@pytest.mark.parametrize(
    "text, words",
    [
        ('name = "x"\nmonths = \n', "not valid TOML"),
        ('name = "x"\nname = "y"\n', "not valid TOML"),
        ("[world\n", "not valid TOML"),
    ],
)
def test_toml_syntax_errors(text, words):
    """Malformed TOML (a missing value, a key set twice, an unclosed table) is reported as not valid
    TOML."""
    assert words in str(refuse(text))


def test_file_problems(tmp_path):
    """A missing file, a file that is not UTF-8 and a folder each get their own clear
    ScenarioError."""
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario(str(tmp_path / "missing.toml"))
    bad = tmp_path / "latin1.toml"
    bad.write_bytes('name = "caf\xe9"\n'.encode("latin-1"))
    with pytest.raises(ScenarioError, match="not UTF-8"):
        read_scenario_file(bad)
    with pytest.raises(ScenarioError, match="cannot read"):
        read_scenario_file(tmp_path)  # a folder


def test_unknown_bundled_name_lists_the_bundled_ones():
    """A misspelt bundled name gets a did-you-mean suggestion, the bundled names and a hint about
    ``.toml`` files."""
    with pytest.raises(ScenarioError) as info:
        load_scenario("standrd")
    msg = str(info.value)
    assert "did you mean 'standard'" in msg and "eval-101" in msg and "tutorial" in msg and ".toml" in msg


def test_bundled_name_with_toml_suffix_gets_a_hint(tmp_path, monkeypatch):
    """A bundled name given with ``.toml`` (and no such file) gets a hint to use it without the
    suffix."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ScenarioError, match="used without '.toml'"):
        load_scenario("eval-101.toml")


def test_bundled_names_win_over_a_same_named_file(tmp_path, monkeypatch):
    """A bare bundled name loads the bundled scenario even when a file of that name is in the
    working folder; ``./name`` loads the file."""
    (tmp_path / "standard").write_text('name = "impostor"\n')
    monkeypatch.chdir(tmp_path)
    assert load_scenario("standard").name == "standard"
    assert load_scenario("./standard").name == "impostor"


def test_relative_path_and_pathlike(tmp_path, monkeypatch):
    """A scenario loads from a relative path, a ``./`` path or a Path object, and ``seed=``
    overrides its seed."""
    (tmp_path / "s.toml").write_text('name = "s"\nmonths = 6\n')
    monkeypatch.chdir(tmp_path)
    assert load_scenario("s.toml").config.months == 6
    assert load_scenario(tmp_path / "s.toml").config.months == 6
    assert load_scenario("./s.toml", seed=3).seed == 3


def test_every_world_parameter_can_be_set_to_its_default():
    """The loader knows every WorldConfig field: writing each default back is accepted."""
    from scenarios.cli import _fmt

    lines = ['name = "all"', "[world]"]
    tables = []
    for f in dataclasses.fields(WorldConfig):
        value = getattr(WorldConfig(), f.name)
        if isinstance(value, dict):
            tables.append(f"[world.{f.name}]")
            tables += [f'"{k}" = {_fmt(v)}' for k, v in value.items()]
        else:
            lines.append(f"{f.name} = {_fmt(value)}")
    scen = read_scenario_text("\n".join(lines + tables) + "\n")
    assert scen.config == WorldConfig()


def test_a_scenario_file_is_read_only_up_to_its_size_limit(tmp_path, monkeypatch):
    """A scenario "file" that never ends (``--scenario /dev/zero``) or is larger than any
    scenario is refused with a ScenarioError naming the limit: it was read whole, until a
    MemoryError traceback (or the OOM killer). A pipe still works (``--scenario <(...)``)."""
    import os
    import threading
    from pathlib import Path

    from scenarios import loader

    if Path("/dev/zero").exists():
        with pytest.raises(ScenarioError, match=r"larger than [\d,]+ bytes"):
            read_scenario_file("/dev/zero")
    big = tmp_path / "big.toml"
    big.write_text('name = "big"\n' + "# padding\n" * 200)
    monkeypatch.setattr(loader, "MAX_SCENARIO_BYTES", 1000)
    with pytest.raises(ScenarioError, match="larger than 1,000 bytes"):
        read_scenario_file(big)
    monkeypatch.undo()
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as fh:
            fh.write('name = "piped"\nmonths = 12\n')

    writer = threading.Thread(target=write)
    writer.start()
    assert read_scenario_file(fifo).config.months == 12
    writer.join()
