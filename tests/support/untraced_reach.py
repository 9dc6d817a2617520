"""What the ``untraced`` tests reach that the traced ones do not: the lines and branches of
scopa/ in one coverage data file and not in another. Empty output means marking them
lost nothing from the coverage a run prints.

    python -m pytest -n 6 --dist loadgroup -m "not alone" --cov=scopa --cov-branch --cov-report=
    python -m pytest -m alone --cov=scopa --cov-branch --cov-append --cov-report=
    COVERAGE_FILE=/tmp/untraced python -m pytest -p no:tests.support.untraced -m untraced \\
        --cov=scopa --cov-branch --cov-report=
    python -m tests.support.untraced_reach /tmp/untraced .coverage

(``-p no:tests.support.untraced`` turns the mark off, so the marked tests are traced.)
Lines and branches are compared as coverage reports them (its JSON report of each file).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import coverage


def _reached(path: str) -> dict[str, tuple[set[int], set[tuple[int, int]]]]:
    """The executed lines and branches of each module of scopa/, as coverage reports them."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        measured = coverage.Coverage(data_file=path)
        measured.load()
        measured.json_report(outfile=str(report), ignore_errors=True)
        files = json.loads(report.read_text())["files"]
    return {
        name[name.rfind("scopa/") :]: (
            set(found["executed_lines"]),
            {(a, b) for a, b in found.get("executed_branches", [])},
        )
        for name, found in files.items()
    }


def only_in(extra: str, base: str) -> list[str]:
    """One line per module of scopa/ whose lines or branches ``extra`` reached and ``base``
    did not."""
    kept = _reached(base)
    report = []
    for module, (lines, branches) in sorted(_reached(extra).items()):
        base_lines, base_branches = kept.get(module, (set(), set()))
        if lines - base_lines or branches - base_branches:
            report.append(
                f"{module}: lines {sorted(lines - base_lines)}"
                f" branches {sorted(branches - base_branches)}"
            )
    return report


if __name__ == "__main__":
    found = only_in(*sys.argv[1:3])
    print("\n".join(found) or "nothing: the traced tests reach every line and branch")
    sys.exit(1 if found else 0)
