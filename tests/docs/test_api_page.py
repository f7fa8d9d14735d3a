"""The API reference (``docs/api.md``) names objects that exist: each ``::: dotted.path``
directive, and each name of its ``members:`` lists, resolves by import, so a module renamed
or removed fails here in the fast loop rather than only in CI's strict documentation build."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

PAGES = sorted((Path(__file__).resolve().parents[2] / "docs").rglob("*.md"))
DIRECTIVE = re.compile(r"^::: ([\w.]+)\s*$", re.M)
#: A directive and its indented option lines, up to a ``members: [...]`` line among them.
MEMBERS = re.compile(r"^::: ([\w.]+)\n(?:[ \t]+.*\n)*?[ \t]+members: \[([^\]\n]*)\]", re.M)


def _resolve(path: str) -> object:
    """The object ``path`` names: the longest importable module prefix, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ModuleNotFoundError(path)


def _directives() -> list[tuple[str, str]]:
    return [
        (page.name, path) for page in PAGES for path in DIRECTIVE.findall(page.read_text("utf-8"))
    ]


def test_the_api_page_has_directives() -> None:
    names = [path for page, path in _directives() if page == "api.md"]
    assert "polars_rank.evaluation" in names and len(names) > 20


@pytest.mark.parametrize(("page", "path"), _directives(), ids=lambda x: str(x))
def test_every_directive_resolves(page: str, path: str) -> None:
    try:
        _resolve(path)
    except (ModuleNotFoundError, AttributeError) as err:
        pytest.fail(f"docs/{page}: ::: {path} does not resolve ({err})")


def test_every_listed_member_exists() -> None:
    missing, listed = [], []
    for page in PAGES:
        for path, members in MEMBERS.findall(page.read_text("utf-8")):
            listed.append(path)
            owner = _resolve(path)
            missing += [
                f"{page.name}: {path}.{m.strip()}"
                for m in members.split(",")
                if m.strip() and not hasattr(owner, m.strip())
            ]
    assert "polars_rank.evaluation" in listed  # the entry points' list was read
    assert not missing, missing


def test_the_resolver_finds_a_stale_name() -> None:
    with pytest.raises(AttributeError):
        _resolve("polars_rank.diversity.plan.parse_diversity_metric")
    with pytest.raises(ModuleNotFoundError):
        _resolve("no_such_package.module")
