"""The garbage collector as a server process wants it, once the app is built: what
start-up built (modules, routes, schemas) frozen out of its scans, and collections spaced
out.

Both are about requests, not memory. Start-up's objects live as long as the process;
scanned by every full collection, they stalled requests (bench/api.py: a move's p99, 130 ms
before the freeze, 75 ms after). A young collection walks every object of the requests in
flight, whose number the default threshold (700) says little about: under bench/api.py
each found 5,000 to 8,000 objects and took a few milliseconds, seven times a second, some
6% of a move's CPU.

A crowd asks more. Thousands of open streams are hundreds of thousands of live objects,
and each event makes short-lived ones for every stream (futures, timers, buffers): with
young collections every 5,000 allocations some of those were caught alive and aged, the
older generations filled, and their collections walked the whole crowd. Young
collections every 50,000 allocations, and the older two five and ten times rarer, let
what dies young die uncollected: bench/scale.py, 5,000 streams, 351 and 365 ms of server
CPU an event against 409 and 465 ms with only the young spaced out to 5,000 (runs
alternated).
"""

from __future__ import annotations

import gc

# Allocations between young collections, young collections between middle ones, middle
# between old ones (the defaults: 700, 10, 10).
THRESHOLDS = (50_000, 50, 100)


def settle() -> None:
    """Freeze what exists now and space the collections out."""
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
