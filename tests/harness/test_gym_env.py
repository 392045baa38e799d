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
    the citations earned in the step; the horizon truncates."""
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
        assert rewards == float(env.unwrapped.core.world.summary()["citations"])
    finally:
        env.close()


def test_an_action_that_is_not_reply_text_is_a_type_error():
    """`step(12345)` raises TypeError naming the type (an action is the reply text), and
    plays nothing: the turn after it is still turn 1 of month 1."""
    env = gymnasium.make(ENV_ID, scenario="short-12", max_turns=2)
    try:
        env.reset(seed=103)
        with pytest.raises(TypeError, match="reply text .* got int"):
            env.step(12345)
        obs, *_rest, info = env.step("print('ok')")
        assert obs == "OUTPUT (turn 1/2)\nok\n" and info["month"] == 1
    finally:
        env.close()
