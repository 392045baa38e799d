"""The LLM harness (MECHANICS §16, Decisions 11; issue 11).

* :mod:`~pibench_tui.harness.core` — :class:`LabCore`, the §16 month loop with the
  Gymnasium API (reset/step), one sandboxed agent process per career;
* :mod:`~pibench_tui.harness.gym_env` — ``pibench/Lab-v0`` (extra ``gym``);
* :mod:`~pibench_tui.harness.backends` — OpenAI-compatible endpoints (extra ``llm``)
  and ``--command`` backends, with retries and token metering;
* :mod:`~pibench_tui.harness.loop` — ``pibench agent``: careers, run directories,
  crash-safe resume, ``--jobs``;
* :mod:`~pibench_tui.harness.replay` — ``pibench replay``;
* :mod:`~pibench_tui.harness.prompt`, :mod:`~pibench_tui.harness.rules`,
  :mod:`~pibench_tui.harness.codeblock`, :mod:`~pibench_tui.harness.integrity`,
  :mod:`~pibench_tui.harness.rundir`.

Nothing heavy is imported here: ``pibench --help`` stays fast.
"""
