"""The garbage collector as a server process wants it, once the app is built: what
start-up built (modules, routes, schemas) frozen out of its scans, and young collections
spaced out.

Both are about requests, not memory. Start-up's objects live as long as the process;
scanned by every full collection, they stalled requests (bench/api.py: a move's p99, 130 ms
before the freeze, 75 ms after). And a young collection walks every object of the
requests in flight, whose number the default threshold (700) says little about: under
bench/api.py's load each one found 5,000 to 8,000 objects and took a few milliseconds,
four to seven times a second, 5 to 7% of a move's CPU; at 5,000 they come about ten
times less often, each about three times longer.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 5000


def settle() -> None:
    """Freeze what exists now and space the young collections (older ones as before)."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
