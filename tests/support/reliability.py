"""The reliability record a hostile test leaves behind: one JSON line in the file named by
``SCOPA_RELIABILITY_LOG``, read by ``bench/reliability.py``."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

LOG_VARIABLE = "SCOPA_RELIABILITY_LOG"


@dataclass
class ReliabilityRecord:
    check: str
    cases: int = 0  # inputs or scenarios generated and run
    requests: int = 0  # HTTP requests sent
    faults: int = 0  # faults injected: killed connections, database stops, crashes
    moves_lost: int = 0  # acknowledged moves missing from the event log afterwards
    failures: int = 0  # wrong answers found (a failing test counts at least one)
    notes: str = ""

    def append_to(self, path: Path) -> None:
        with path.open("a", encoding="utf-8") as log:
            log.write(json.dumps(asdict(self), sort_keys=True) + "\n")
