"""Fixtures shared by the policy and sweep tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def dask_cluster():
    """A small in-process Dask cluster (threads, no dashboard), one per test module."""
    import distributed  # the `test` extra installs dask[distributed]

    with distributed.LocalCluster(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
    ) as cluster:
        yield cluster
