"""numpy for a pibench process that does no linear algebra: its BLAS at one thread.

numpy's OpenBLAS starts a pool of worker threads when numpy is imported (one per core
less one), sized from ``OPENBLAS_NUM_THREADS`` (or ``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS``
for other builds) read once, as the library loads. The workers busy-wait for a while
after they start: CPU time taken from whatever else runs on the machine (in ``pibench
headless``, the agent process importing numpy on the other core). The world never calls
BLAS (its random draws are PCG64's, its arithmetic elementwise), so a pibench process
that only runs the world loses nothing with one thread, and its results are the same.

:func:`import_numpy_one_thread` imports numpy with those variables set to ``1`` where the
environment does not set them, then puts the environment back as it was: processes
started later (the query worker, the agent process, which gets its own clean
environment anyway) see exactly what the user set. Nothing else is touched
(``OPENBLAS_CORETYPE`` and the like stay as they are).
"""

from __future__ import annotations

import os
import sys

#: The thread-count variables of the BLAS builds numpy ships with (OpenBLAS with pthreads
#: or OpenMP) or may be built against (MKL).
THREAD_VARIABLES: tuple[str, ...] = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def import_numpy_one_thread() -> None:
    """Import numpy (if not yet imported) with its BLAS thread pool at one thread.

    A variable the environment already sets is left alone (the user's choice wins);
    the environment is restored right after the import. Without numpy installed this
    does nothing (the import error comes, as before, where numpy is first used).
    """
    if "numpy" in sys.modules:
        return
    added = [name for name in THREAD_VARIABLES if name not in os.environ]
    for name in added:
        os.environ[name] = "1"
    try:
        import numpy  # noqa: F401 - loads the BLAS library while the variables are set
    except ImportError:
        pass
    finally:
        for name in added:
            os.environ.pop(name, None)
