"""MkDocs hooks of the documentation site (``mkdocs.yml``: ``hooks: [docs/hooks.py]``).

* The metric reference, ``metrics.md``, is generated from the catalog at every build
  (``docs/tables.py``'s ``metric_reference``): it is never kept in a file.
* ``changelog.md`` is the repository's ``CHANGELOG.md``.
* Every ``docs/guides/*.md`` missing from the nav's "Guides" section is added to it (after the
  listed ones, titled by its first heading), so a new guide needs no edit of ``mkdocs.yml``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

from mkdocs.structure.files import File, Files

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent


def _tables() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_tables", DOCS / "tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _title(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem.replace("-", " ").capitalize()


def _listed(items: list[Any]) -> set[str]:
    found: set[str] = set()
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            found |= _listed(value)
        elif isinstance(value, str):
            found.add(value)
    return found


def on_config(config: Any) -> Any:
    nav = config["nav"] or []
    for item in nav:
        if isinstance(item, dict) and "Guides" in item:
            guides = item["Guides"]
            listed = _listed(nav)
            for path in sorted((DOCS / "guides").glob("*.md")):
                src = f"guides/{path.name}"
                if src not in listed:
                    guides.append({_title(path): src})
    return config


def on_files(files: Files, config: Any) -> Files:
    files.append(File.generated(config, "metrics.md", content=_tables().metric_reference()))
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "changelog.md", content=changelog))
    return files
