"""The documentation's pages and their fenced code blocks, for the tests of ``tests/docs``."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(
    r"(?:<!-- needs: (?P<needs>\w+) -->\n)?```(?P<lang>\w+)\n(?P<code>.*?)\n```", re.S
)


def blocks(path: Path, lang: str) -> list[tuple[str | None, str]]:
    """``(needs, code)`` of every ``lang`` block of the page."""
    text = path.read_text(encoding="utf-8")
    return [(m["needs"], m["code"]) for m in FENCE.finditer(text) if m["lang"] == lang]


def run_page(path: Path, namespace: dict[str, object], needs: str | None) -> int:
    """Run the page's ``python`` blocks marked ``<!-- needs: {needs} -->`` (None: the
    unmarked ones) in ``namespace``, in page order; the number run."""
    ran = 0
    for block_needs, code in blocks(path, "python"):
        if block_needs != needs:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. the demo's run queries without judgments
            exec(compile(code, f"{path.name}:python", "exec"), namespace)  # noqa: S102
        ran += 1
    return ran
