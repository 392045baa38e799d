"""Settings shared by the whole test suite.

- Hypothesis never enforces a per-example deadline nor the "too slow" health check: a
  loaded machine only makes a property test slower, never wrong (no timing assertions
  anywhere). A test's own ``@settings(suppress_health_check=...)`` replaces the profile's
  list: name ``HealthCheck.too_slow`` there too.
- Many tests run the real ``pibench`` command in a subprocess. When the environment forbids
  bytecode files (``PYTHONDONTWRITEBYTECODE``), every such process compiled the whole package
  from source again; the suite instead keeps bytecode under a private folder of the temporary
  directory (``PYTHONPYCACHEPREFIX``), never next to the sources.
- A pytest-xdist worker ignores SIGINT once it has run its last test (:func:`pytest_sessionfinish`):
  when the run ends, execnet gives each worker 5 s to finish, then sends it a SIGINT; on a
  loaded machine a worker's own end (unconfigure hooks, a garbage collection) can take longer,
  and the ``KeyboardInterrupt`` then lands anywhere (once inside Hypothesis's gc callback:
  "Exception ignored", a warning after a green run). A Ctrl-C during the tests still stops them.
- ``os.fsync`` does nothing in the test processes (:func:`_skip_fsync`; processes forked from
  them included): it only guards written data against a power cut or an OS crash, which no
  test makes, while each call waits for the disk (the in-process tests of harness, report,
  saves and policies made ~4,400 calls: 29 s of waiting on a loaded machine). What the tests
  prove holds without it: a killed writer never leaves a broken file (the atomic replace
  does that), and the tests of *which* writes are fsync'd patch ``os.fsync`` with their own
  spy. Subprocesses (the real ``pibench`` command) keep the real one.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile("pibench", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile("pibench")


def _keep_bytecode_out_of_the_tree() -> None:
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return  # bytecode goes to __pycache__ as usual
    prefix = Path(tempfile.gettempdir()) / f"pibench-tests-pycache-{os.getuid()}"
    prefix.mkdir(mode=0o700, exist_ok=True)
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    sys.dont_write_bytecode = False
    sys.pycache_prefix = str(prefix)


_keep_bytecode_out_of_the_tree()


def _skip_fsync(fd: int) -> None:
    """Stand-in for ``os.fsync`` in the test processes (module docstring): checks the file
    descriptor like the real one (a closed or bad one still raises ``OSError``), never
    waits for the disk."""
    os.fstat(fd)


os.fsync = _skip_fsync


def pytest_sessionfinish(session, exitstatus) -> None:
    """In an xdist worker, ignore SIGINT from here on: every result is reported, and what is
    left (unconfigure, the interpreter's exit) must not be cut by execnet's SIGINT (module docstring)."""
    if hasattr(session.config, "workerinput"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
