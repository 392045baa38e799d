"""``pibench report``: from runs to findings (issue 11).

* :mod:`~pibench_tui.report.load` — careers from run directories (agent and policy) and
  ``pibench run --json`` outputs, re-simulated to check them and to get trajectories;
* :mod:`~pibench_tui.report.stats` — summaries, seed-bootstrap intervals, Spearman,
  variance shares;
* :mod:`~pibench_tui.report.analysis` — leaderboard, axes, behaviour, census, legibility;
* :mod:`~pibench_tui.report.figures` — matplotlib figures (extra ``report``);
* :mod:`~pibench_tui.report.render` — the self-contained HTML page and rich tables.
"""
