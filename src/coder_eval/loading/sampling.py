"""Row sampling: a fixed-seed flat sample, or a per-stratum sample."""

from __future__ import annotations

import random
from typing import Any

FLAT_SAMPLE_SEED = 20240601
"""`--sample N` is reproducible by design: the same N rows every run."""


def flat_sample(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """Uniform N rows over the whole dataset, in dataset order; all rows when N >= size."""
    if n >= len(rows):
        return list(rows)
    keep = sorted(random.Random(FLAT_SAMPLE_SEED).sample(range(len(rows)), n))
    return [rows[i] for i in keep]


def stratified_sample(
    rows: list[dict[str, Any]], per_stratum: int, field: str, seed: int | None
) -> list[dict[str, Any]]:
    """Up to N rows per value of `field` (missing counts as ""). Unseeded draws differ per run."""
    rng = random.Random(seed)
    strata: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        key = row.get(field)
        strata.setdefault("" if key is None else str(key), []).append(i)
    keep: list[int] = []
    for indices in strata.values():
        keep.extend(indices if len(indices) <= per_stratum else rng.sample(indices, per_stratum))
    return [rows[i] for i in sorted(keep)]
