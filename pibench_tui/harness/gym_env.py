"""``pibench/Lab-v0``: the §16 harness contract as a Gymnasium environment (optional extra ``gym``).

    import gymnasium
    env = gymnasium.make("pibench_tui.harness.gym_env:pibench/Lab-v0", scenario="short-12")
    # or: import pibench_tui.harness.gym_env (registers pibench/Lab-v0), then gymnasium.make("pibench/Lab-v0");
    # `import pibench_tui` after `import gymnasium` registers it too
    obs, info = env.reset(seed=101)             # obs: the month message (text)
    obs, reward, terminated, truncated, info = env.step("print(lab.dashboard()['budget'])")

Observation and action are text. The observation is always the agent's next message: a
month message when a month opens, otherwise ``OUTPUT (turn t/N)`` and the block's output.
The action is the code of one turn ("" = a turn without code). ``reward`` = citations
earned during the step, and on the last step also the projection of the published papers'
future citations (MECHANICS §12; none after a collapse), so the return of an episode is the
career's Impact; ``terminated`` = collapse, ``truncated`` = horizon, ``info`` = the turn's
facts and the reports of months closed by the step, and on the last step ``impact``,
``earned`` and ``projection`` (Impact's split, :func:`world.scoring.impact`).

Registration: Gymnasium 1.x has no plugin mechanism for installed packages (the ``gym.envs``
entry points were removed in 1.0), so ``gymnasium.make("pibench/Lab-v0")`` needs this module
imported first; the ``"module:id"`` form above imports it. ``max_episode_steps`` is
registered as the most steps any scenario can take at the default turns (the longest
horizon × :data:`DEFAULT_MAX_TURNS`): an episode ends by itself at its horizon, after at
most :attr:`LabEnv.max_steps` steps. A smaller ``max_episode_steps`` given to
``gymnasium.make`` cuts the career short (Gymnasium's ``TimeLimit``): the return is then not
its Impact. The code runs in the same
sandboxed agent process as ``pibench headless``; see :class:`~pibench_tui.harness.core.LabCore`.
"""

from __future__ import annotations

import string
from typing import Any

import gymnasium
from gymnasium import spaces

from pibench_tui.harness.core import DEFAULT_BLOCK_TIMEOUT, DEFAULT_MAX_TURNS, LabCore

__all__ = ["ENV_ENTRY", "ENV_ID", "MAX_EPISODE_STEPS", "LabEnv", "UnicodeText"]

ENV_ID = "pibench/Lab-v0"
#: ``gymnasium.make`` id that imports this module first (works without an import).
ENV_ENTRY = f"pibench_tui.harness.gym_env:{ENV_ID}"

#: Longest observation (a month message with a large dashboard), in characters.
MAX_OBSERVATION = 2_000_000
#: Longest action (one block of code), in characters.
MAX_ACTION = 1_000_000

_PRINTABLE = string.printable


def _longest_horizon() -> int:
    """The most months a scenario may have (the range of ``WorldConfig.months``)."""
    import dataclasses

    from world.config import WorldConfig

    field = next(f for f in dataclasses.fields(WorldConfig) if f.name == "months")
    return int(field.metadata["max"])


#: Registered ``max_episode_steps``: the longest horizon × the default turns a month.
MAX_EPISODE_STEPS = _longest_horizon() * DEFAULT_MAX_TURNS


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
        #: The most steps a career can take: horizon × turns a month (each month ends at
        #: its last turn at the latest).
        self.max_steps = int(scen.config.months) * int(max_turns)

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
        """Play one turn (see :meth:`LabCore.step`); the last step's reward adds the
        projection, so the return is the career's Impact, and its ``info`` has ``impact``,
        ``earned`` and ``projection``."""
        obs, reward, terminated, truncated, info = self.core.step(action)
        self._last_obs = obs
        if terminated or truncated:
            from world.scoring import earned, impact

            parts = impact(self.core.world)
            # earned before this step + this reward = the return so far; the rest of Impact
            # (the projection, and the rounding of §12) is paid now.
            reward = float(parts["total"]) - (float(earned(self.core.world)) - reward)
            info.update(impact=float(parts["total"]), earned=float(parts["earned"]), projection=parts["projection"])
        return obs, reward, terminated, truncated, info

    def render(self) -> str | None:
        """The last observation (``render_mode="ansi"``)."""
        return self._last_obs if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Stop the agent process."""
        self.core.close()


if ENV_ID not in gymnasium.envs.registry:
    gymnasium.register(id=ENV_ID, entry_point="pibench_tui.harness.gym_env:LabEnv", max_episode_steps=MAX_EPISODE_STEPS)
