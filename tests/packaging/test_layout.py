"""The package's layout: no import circle and no floor importing a higher one, however the
import is written.

Every module's imports are read from its source, function-local ones and those under
``if TYPE_CHECKING:`` included (a type named in an annotation is a dependency too: the module
cannot be read, type-checked or moved without the one that defines it); importing ``a.b.c``
also runs the package ``a.b`` (its ``__init__``), so that is an edge too (the root package
``polars_rank`` is the public API on top and is left out of those implicit edges).
"""

from __future__ import annotations

import ast
from pathlib import Path

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
    for node in ast.walk(tree):  # every import: at load, in a function, under TYPE_CHECKING
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


#: The floors, lowest first (docs/architecture.md): a module imports its own floor and those
#: below, never one above, at run time or for types. Each floor lists its top-level modules and
#: folders; ``io.py`` and ``duckdb.py`` build on the core alone and sit on its floor. The root
#: package (the public API) and ``__main__`` are above them all.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("core", "io", "duckdb"),
    ("ranking", "recsys", "classification", "ratings", "diversity", "policy"),
    ("catalog",),
    ("compiler",),
    ("engines", "dbt"),
    ("evaluation",),
    ("comparison", "plot", "demo"),
    ("cli", "__main__"),
)


def _floor(module: str) -> int | None:
    """The floor of a package module (None for the root package, above every floor)."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    for n, floor in enumerate(FLOORS):
        if parts[1] in floor:
            return n
    raise AssertionError(f"{module} is on no floor: add its folder to FLOORS")


def _climbs(graph: dict[str, set[str]]) -> list[str]:
    """The imports from a floor to a higher one (``module -> target``)."""
    out = []
    for module, targets in sorted(graph.items()):
        low = _floor(module)
        for target in sorted(targets):
            high = _floor(target)
            if low is not None and (high is None or high > low):
                out.append(f"{module} -> {target}")
    return out


def test_floors() -> None:
    """Lower floors never import higher ones: core < domain expressions < catalog < compiler
    < engines < evaluation < cli, type-only imports included."""
    climbs = _climbs(_graph())
    assert not climbs, f"{len(climbs)} imports climb a floor: " + "; ".join(climbs)


def test_every_module_is_on_a_floor() -> None:
    for module in _modules():
        _floor(module)


def test_the_floor_check_finds_a_climb(tmp_path: Path) -> None:
    """The check itself: a core module naming a catalog type only for the type checker climbs,
    and so does one importing an engine in a function; a catalog module importing the core
    does not."""
    modules = {
        "polars_rank.core.a": tmp_path / "a.py",
        "polars_rank.catalog.b": tmp_path / "b.py",
        "polars_rank.engines.c": tmp_path / "c.py",
    }
    (tmp_path / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from polars_rank.catalog.b import Spec\n"
        "def f():\n    import polars_rank.engines.c\n",
        encoding="utf-8",
    )
    (tmp_path / "b.py").write_text("from polars_rank.core import a\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("", encoding="utf-8")
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _climbs(graph) == [
        "polars_rank.core.a -> polars_rank.catalog",
        "polars_rank.core.a -> polars_rank.catalog.b",
        "polars_rank.core.a -> polars_rank.engines",
        "polars_rank.core.a -> polars_rank.engines.c",
    ]


def test_the_engines_pass_their_options_as_one_object() -> None:
    """Options travel as one object inside the package: no engine spreads its ``Options`` into
    :func:`polars_rank.to_sql`'s keywords (to be rebuilt from them) or builds one from
    keywords; the keywords are the public face only (``compile_query`` takes the object)."""
    spread = []
    for path in sorted((PACKAGE / "engines").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                called = ast.unparse(node.func)
                if called in {"to_sql", "Options.from_arguments"} or called.endswith(".to_sql"):
                    spread.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {called}")
    assert not spread, spread
