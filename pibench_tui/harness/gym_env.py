"""``pibench/Lab-v0``: the §16 harness contract as a Gymnasium environment (optional extra ``gym``).

    import gymnasium, pibench_tui.harness.gym_env  # registers pibench/Lab-v0
    env = gymnasium.make("pibench/Lab-v0", scenario="short-12")
    obs, info = env.reset(seed=101)             # obs: the month message (text)
    obs, reward, terminated, truncated, info = env.step("print(lab.dashboard()['budget'])")

Observation and action are text. The observation is always the agent's next message: a
month message when a month opens, otherwise ``OUTPUT (turn t/N)`` and the block's output.
The action is the code of one turn ("" = a turn without code). ``reward`` = citations
earned during the step, ``terminated`` = collapse, ``truncated`` = horizon, ``info`` =
the turn's facts and the reports of months closed by the step. The code runs in the same
sandboxed agent process as ``pibench headless``; see :class:`~pibench_tui.harness.core.LabCore`.
"""

from __future__ import annotations

import string
from typing import Any

import gymnasium
from gymnasium import spaces

from pibench_tui.harness.core import DEFAULT_BLOCK_TIMEOUT, DEFAULT_MAX_TURNS, LabCore

__all__ = ["ENV_ID", "LabEnv", "UnicodeText"]

ENV_ID = "pibench/Lab-v0"

#: Longest observation (a month message with a large dashboard), in characters.
MAX_OBSERVATION = 2_000_000
#: Longest action (one block of code), in characters.
MAX_ACTION = 1_000_000

_PRINTABLE = string.printable


class UnicodeText(spaces.Text):
    """A text space that holds any string up to ``max_length`` characters.

    Samples are drawn from printable ASCII (``charset``); membership accepts every
    character, since observations carry names and agent output in any script."""

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a string of an allowed length."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length


class LabEnv(gymnasium.Env):
    """One pibench career as a Gymnasium environment (see the module docstring).

    Args:
        scenario: A bundled scenario name or a ``.toml`` path (``None``: the default).
        seed: World seed used by ``reset()`` without a seed (default: the scenario's).
        max_turns: Code turns per month (MECHANICS §16: 8).
        memory: ``False`` turns memory writes into no-ops.
        block_timeout: Wall-clock limit per block, in seconds.
        render_mode: ``None`` or ``"ansi"`` (``render()`` returns the last observation).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        scenario: str | None = None,
        seed: int | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        memory: bool = True,
        block_timeout: float = DEFAULT_BLOCK_TIMEOUT,
        render_mode: str | None = None,
    ) -> None:
        from scenarios import load_scenario

        scen = load_scenario(scenario, seed=seed)
        self.scenario = scen
        self.core = LabCore(
            scen.config, seed=scen.seed, max_turns=max_turns, memory=memory, block_timeout=block_timeout
        )
        self.observation_space = UnicodeText(max_length=MAX_OBSERVATION, min_length=0, charset=_PRINTABLE)
        self.action_space = UnicodeText(max_length=MAX_ACTION, min_length=0, charset=_PRINTABLE)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self._last_obs = ""

    @property
    def system_prompt(self) -> str:
        """The §16 system prompt of this scenario."""
        return self.core.system_prompt

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start a career with world ``seed`` (``None``: the previous seed); see
        :meth:`LabCore.reset` for ``options``."""
        super().reset(seed=seed)
        obs, info = self.core.reset(seed=seed, options=options)
        self._last_obs = obs
        return obs, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play one turn (see :meth:`LabCore.step`)."""
        out = self.core.step(action)
        self._last_obs = out[0]
        return out

    def render(self) -> str | None:
        """The last observation (``render_mode="ansi"``)."""
        return self._last_obs if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Stop the agent process."""
        self.core.close()


if ENV_ID not in gymnasium.envs.registry:
    gymnasium.register(id=ENV_ID, entry_point="pibench_tui.harness.gym_env:LabEnv")
