"""The package's layout: no import circle, however the import is written.

Every module's imports are read from its source, function-local ones included (those under
``if TYPE_CHECKING:``, which never run, are not); importing
``a.b.c`` also runs the package ``a.b`` (its ``__init__``), so that is an edge too (the root
package ``polars_rank`` is the public API on top and is left out of those implicit edges).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "polars_rank"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules that importing ``name`` may import, at load or in a function."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {  # imports under ``if TYPE_CHECKING:`` never run
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            submodules = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
            targets = submodules or [base]
        for target in targets:
            if not target.startswith("polars_rank"):
                continue
            while target and target not in modules:
                target = target.rpartition(".")[0]
            # the target and the packages above it that the importer is not inside of (its
            # own packages are already running; the root package is the API on top)
            parts = target.split(".")
            for i in range(2, len(parts) + 1):
                above = ".".join(parts[:i])
                if above == target or not (name == above or name.startswith(above + ".")):
                    found.add(above)
    found.discard(name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_no_import_circle() -> None:
    circles = _circles(_graph())
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


def test_the_circle_finder_finds_a_circle() -> None:
    """The check itself: a two-module circle and a circle through a package are found."""
    assert _circles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert _circles({"p": {"q.x"}, "q.x": {"q"}, "q": {"p"}}) == [["p", "q", "q.x"]]


def test_the_graph_reads_function_local_and_package_imports(tmp_path: Path) -> None:
    modules = {"polars_rank.a": tmp_path / "a.py", "polars_rank.b.c": tmp_path / "c.py"}
    modules["polars_rank.b"] = tmp_path / "__init__.py"
    source = "def f():\n    from polars_rank.b import c\n"  # c: a module of package b
    (tmp_path / "a.py").write_text(source, encoding="utf-8")
    found = _imports("polars_rank.a", tmp_path / "a.py", modules)
    assert found == {"polars_rank.b", "polars_rank.b.c"}


@pytest.mark.parametrize(
    ("folder", "may_not_import"),
    [
        ("core", ("catalog", "engines", "compiler", "cli", "evaluation")),
        ("catalog", ("engines", "compiler", "cli", "evaluation")),
        ("compiler", ("engines", "cli", "evaluation")),
        ("ranking", ("catalog", "engines", "compiler", "cli", "evaluation")),
        ("recsys", ("catalog", "engines", "compiler", "cli", "evaluation")),
    ],
)
def test_floors(folder: str, may_not_import: tuple[str, ...]) -> None:
    """Lower floors never import higher ones: core < domain < catalog < compiler < engines."""
    graph = _graph()
    bad = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module.startswith(f"polars_rank.{folder}")
        for target in targets
        if any(target.startswith(f"polars_rank.{up}") for up in may_not_import)
    )
    assert not bad, bad
