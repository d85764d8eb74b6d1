"""Fixtures for the Ray executor tests: a live local cluster and dataset tasks to run on it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from raycluster import RayCluster, ray_cluster

pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'coder-eval[ray]')")


@pytest.fixture(scope="module")
def cluster() -> Iterator[RayCluster]:
    """A head and one worker node (one CPU each) for the tests of one module."""
    with ray_cluster(workers=1) as live:
        yield live  # type: ignore[misc]
