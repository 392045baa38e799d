"""`pibench/Lab-v0`: the harness contract as a Gymnasium environment (issue 11)."""

from __future__ import annotations

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import pibench_tui.harness.gym_env  # noqa: F401 - registers pibench/Lab-v0
from pibench_tui.harness.gym_env import ENV_ID


def test_env_passes_the_gymnasium_checker():
    """`gymnasium.make("pibench/Lab-v0")` passes `gymnasium.utils.env_checker.check_env`
    (text spaces, seeded reset determinism, step determinism)."""
    env = gymnasium.make(ENV_ID, scenario="short-12")
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


def test_step_semantics_turns_reward_and_truncation():
    """Observations are the agent's next messages; the last turn auto-advances; reward is
    the citations earned in the step (the last step adds the projection); the horizon
    truncates."""
    env = gymnasium.make(ENV_ID, scenario="short-12", max_turns=2)
    try:
        obs, info = env.reset(seed=103)
        assert obs.startswith("=== Month 1 of 12") and info == {"month": 1, "seed": 103}
        obs, reward, term, trunc, info = env.step("total = 6 * 7\ntotal")
        assert obs == "OUTPUT (turn 1/2)\n42\n" and reward == 0.0 and not (term or trunc)
        obs, reward, term, trunc, info = env.step("")
        assert info["auto_advanced"] and info["reports"][0]["month"] == 1
        assert obs.startswith("=== Month 2 of 12")
        obs, *_ = env.step("print(total)\nlab = 'shadowed'")  # the namespace persists across months
        assert obs == "OUTPUT (turn 1/2)\n42\n"
        obs, _r, _t, _tr, info = env.step("print(lab.dashboard()['month'], total)")  # API names re-bound (§16)
        assert info["output"] == "2 42\n" and info["auto_advanced"]
        assert obs.startswith("=== Month 3 of 12")
        assert env.unwrapped.core.world.s.action_log[-1][1] == "time.next_month"
        rewards = 0.0
        while True:
            obs, reward, term, trunc, info = env.step("time.next_month()")
            rewards += reward
            if term or trunc:
                break
        assert trunc and not term and obs.startswith("=== The career is over")
        summary = env.unwrapped.core.world.summary()
        assert rewards == pytest.approx(summary["impact"]) and info["impact"] == summary["impact"]
    finally:
        env.close()


def test_an_action_that_is_not_text_is_a_type_error():
    """`step(12345)` raises TypeError naming the type (an action is the code of one turn), and
    plays nothing: the turn after it is still turn 1 of month 1."""
    env = gymnasium.make(ENV_ID, scenario="short-12", max_turns=2)
    try:
        env.reset(seed=103)
        with pytest.raises(TypeError, match="code of one turn .* got int"):
            env.step(12345)
        obs, *_rest, info = env.step("print('ok')")
        assert obs == "OUTPUT (turn 1/2)\nok\n" and info["month"] == 1
    finally:
        env.close()


def test_the_return_of_an_episode_is_the_careers_impact():
    """The baseline's monthly code played through `gymnasium.make` on mid-30 (seed 103: Impact
    14.6 = 1 citation earned + 13.6 projected): the rewards
    sum to the career's Impact (citations earned + the projection paid on the last step),
    not to the citations alone, and the last `info` holds `impact`, `earned` and
    `projection` as `world.scoring.impact` computes them; no earlier step has them."""
    from tests.harness.scripted_pi import baseline_definitions
    from world.scoring import impact

    env = gymnasium.make(ENV_ID, scenario="mid-30", max_turns=2)
    try:
        env.reset(seed=103)
        env.step(baseline_definitions())  # turn 1 of month 1: the definitions, nothing played
        total, steps, done = 0.0, 1, False
        while not done:
            _obs, reward, term, trunc, info = env.step("play_month()")
            total += reward
            steps += 1
            done = term or trunc
            assert done or "impact" not in info
        parts = impact(env.unwrapped.core.world)
        assert parts["projection"] > 0 and parts["earned"] > 0  # the projection is part of the return
        assert total == pytest.approx(parts["total"], abs=1e-9)
        assert total > parts["earned"]
        assert (info["impact"], info["earned"], info["projection"]) == (
            parts["total"],
            parts["earned"],
            parts["projection"],
        )
        assert steps <= env.unwrapped.max_steps
    finally:
        env.close()


def test_registration_sets_max_episode_steps_that_never_cuts_a_career():
    """`pibench/Lab-v0` is registered with `max_episode_steps` = the longest horizon a config
    allows × the default turns, so Gymnasium's TimeLimit wraps the env without ever cutting a
    career short; the env tells its own bound (months × turns)."""
    from pibench_tui.harness.gym_env import MAX_EPISODE_STEPS

    assert gymnasium.spec(ENV_ID).max_episode_steps == MAX_EPISODE_STEPS == 240 * 8
    env = gymnasium.make(ENV_ID, scenario="short-12", max_turns=2)
    try:
        assert env.unwrapped.max_steps == 24 and env.spec.max_episode_steps == MAX_EPISODE_STEPS
    finally:
        env.close()


def test_gymnasium_make_works_from_a_fresh_interpreter_with_the_module_id():
    """In a new interpreter that never imported pibench, `gymnasium.make` with the module-qualified
    id (Gymnasium 1.x's way to register an installed package's envs) makes the env, and the
    bare id then works too."""
    import subprocess
    import sys

    code = (
        "import gymnasium\n"
        "env = gymnasium.make('pibench_tui.harness.gym_env:pibench/Lab-v0', scenario='short-12')\n"
        "obs, info = env.reset(seed=101)\n"
        "env.close()\n"
        "env = gymnasium.make('pibench/Lab-v0', scenario='short-12')\n"
        "print(obs.splitlines()[0], env.spec.max_episode_steps)\n"
        "env.close()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.startswith("=== Month 1 of 12") and out.stdout.split()[-1] == "1920"


def test_import_pibench_tui_after_gymnasium_registers_the_bare_id():
    """QA7 F13: `import gymnasium, pibench_tui; gymnasium.make("pibench/Lab-v0")` answered
    Gymnasium's "Namespace pibench not found"; now it makes the env. `import pibench_tui`
    alone still imports no Gymnasium (start-up stays fast)."""
    import subprocess
    import sys

    code = (
        "import gymnasium, pibench_tui\n"
        "env = gymnasium.make('pibench/Lab-v0', scenario='short-12')\n"
        "print(env.spec.max_episode_steps)\n"
        "env.close()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-800:]
    assert out.stdout.split()[-1] == "1920"
    code = "import sys, pibench_tui\nprint('gymnasium' in sys.modules)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False"
