"""Pause Python's cyclic garbage collector while bounded work builds many long-lived objects.

Loading a thousand records (or a thousand dataset rows) allocates hundreds of thousands of
containers that all stay alive. The collector, triggered by allocation counts, walks the growing
generations again and again without finding anything to free: a third to a half of the load's
time, and it keeps costing while the loaded objects are alive. Records, rows and the models
built from them are trees (no reference cycles), so reference counting frees them as before.

Used around record loading and around the whole of the short commands (`plan`, `aggregate`,
`report`), whose work ends with the command; never around a run, whose event loop and threads
do make cycles.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with automatic collection off; restore the previous state afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
