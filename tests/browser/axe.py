"""axe-core in a Playwright page: the accessibility rules browsers' audit tools apply.

axe-core is a test dependency from the npm registry (``tests/browser/package.json``,
installed by ``npm ci`` in that folder; ``.ci/run`` does it). Without it the scan skips,
unless ``CI`` is set: then it fails, so CI never passes by skipping it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
# What must never be on a screen; moderate and minor findings are advice.
BLOCKING = ("serious", "critical")
# axe leaves an aria-label on an element that may not have one "to review" when the
# element also holds text; a name that assistive technology drops is a failure here.
DECIDED_HERE = ("aria-prohibited-attr",)
# Every rule of the WCAG 2.x levels A and AA, and axe's own best practices.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def axe_script() -> Path:
    if not AXE.exists():
        reason = f"no axe-core at {AXE}: run `npm ci` in tests/browser"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI is set, so this is a failure, not a skip)")
        pytest.skip(reason)
    return AXE


def serious_violations(page: Any) -> list[dict[str, Any]]:
    """Runs axe over the page as it stands; the violations of serious or critical impact."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(axe_script()))
    result: dict[str, Any] = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})",
        TAGS,
    )
    found = result["violations"] + [v for v in result["incomplete"] if v["id"] in DECIDED_HERE]
    return [v for v in found if v["impact"] in BLOCKING]


def describe(violations: list[dict[str, Any]]) -> str:
    """One paragraph per rule broken: its id and impact, what it asks, and where."""
    out = []
    for v in violations:
        lines = [f"{v['id']} ({v['impact']}): {v['help']} <{v['helpUrl']}>"]
        for node in v["nodes"]:
            target = " ".join(" ".join(t) if isinstance(t, list) else t for t in node["target"])
            summary = node.get("failureSummary", "").replace("\n", " ")
            lines.append(f"  at {target}: {summary}")
        out.append("\n".join(lines))
    return "\n".join(out)


def assert_accessible(page: Any, screen: str) -> None:
    found = serious_violations(page)
    assert not found, f"{screen}: axe finds serious or critical violations:\n{describe(found)}"
