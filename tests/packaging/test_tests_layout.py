"""The tests' own layout: folders mirroring the package, and no test module importing another.

* Every package folder ``polars_rank/<x>/`` has its tests in ``tests/<x>/`` (``engines/duckdb``
  in ``tests/engines/duckdb``), except where :data:`FOLDERS` states another; the package's
  top-level modules have theirs where :data:`MODULES` says. The folders that mirror nothing
  in the package are listed in :data:`OTHER_FOLDERS`, each with what it holds; no test module
  sits at the top of ``tests/``.
* A test module (``test_*.py``) or a ``conftest.py`` is never imported by another file: what
  tests share lives in ``tests/support`` (helpers, no tests) or in a ``conftest.py``
  (fixtures). Imports are read from the source, function-local ones included.
* The tests' modules are imported by their dotted names (``tests.support.sql_cases``), never
  by a bare one (a folder on ``sys.path``).
* Every folder of tests is a package (an ``__init__.py``): the modules are
  ``tests.<folder>.test_<name>``, so two folders may hold modules of the same name.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "polars_rank"
TESTS = ROOT / "tests"

#: Package folders whose tests live in another folder of ``tests/``.
#: The reserved-word lists and the dialect classes: tests/core/test_identifiers.py.
FOLDERS = {"core/keywords": "core", "core/dialects": "core"}
#: The package's top-level modules and the folder of their tests.
MODULES = {
    "__init__": "evaluation",
    "__main__": "packaging",
    "evaluation": "evaluation",
    "io": "evaluation",
    "plot": "evaluation",
    "demo": "cli",
    "duckdb": "sql",
}
#: Folders of ``tests/`` that mirror no package folder.
OTHER_FOLDERS = {
    "support": "helpers shared by the tests (no tests)",
    "data": "trec_eval's test files and its licence",
    "oracles": "the metrics against independent implementations",
    "hostile": "hostile names, files, parameters and sessions",
    "evaluation": "evaluate, evaluate_runs, by=, reading files, plots (top-level modules)",
    "sql": "the DuckDB macro files (the repository's sql/, polars_rank.duckdb)",
    "docs": "the documentation's examples and console sessions",
    "packaging": "layout, packaging, installation",
}


def _is_test_module(path: Path) -> bool:
    return path.name.startswith("test_") or path.name == "conftest.py"


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "data" not in p.relative_to(TESTS).parts)


def _imported(path: Path, root: Path) -> set[str]:
    """Every module name ``path`` imports (``from a import b``: ``a`` and ``a.b``), relative
    imports resolved, function-local ones included."""
    package = _module_name(path if path.name == "__init__.py" else path.parent, root)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found |= {base, *(f"{base}.{alias.name}" for alias in node.names)}
    return found


def _imports_of_test_modules(files: list[Path], root: Path) -> list[str]:
    """``importer -> imported`` for every import of a test module or a conftest, by its
    dotted name or by its bare name (a folder of ``tests/`` put on ``sys.path``)."""
    tests = {_module_name(p, root): p for p in files if _is_test_module(p)}
    stems = {p.stem for p in tests.values()}
    bad: set[str] = set()
    for path in files:
        for name in _imported(path, root):
            top = name.split(".")[0]
            if name in tests or top in stems:
                bad.add(f"{path.relative_to(root).as_posix()} -> {name if name in tests else top}")
    return sorted(bad)


def test_no_test_module_imports_another() -> None:
    bad = _imports_of_test_modules(_test_files(), ROOT)
    assert not bad, "move what is shared to tests/support or a conftest.py: " + "; ".join(bad)


def test_the_import_check_finds_imports_of_test_modules(tmp_path: Path) -> None:
    """The check itself, on a small tree: a dotted, a relative, a bare and a function-local
    import of a test module are found; an import of a helper is not."""
    (tmp_path / "tests" / "a").mkdir(parents=True)
    sources = {
        "tests/a/test_one.py": "from tests.a.test_two import x\n",
        "tests/a/test_two.py": "from .test_one import y\n",
        "tests/a/test_three.py": "def f():\n    import test_two\n",
        "tests/a/test_four.py": "from tests.a import helper\nfrom tests.a.helper import z\n",
        "tests/a/helper.py": "import polars\n",
    }
    for name, source in sources.items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    files = sorted(tmp_path.rglob("*.py"))
    assert _imports_of_test_modules(files, tmp_path) == [
        "tests/a/test_one.py -> tests.a.test_two",
        "tests/a/test_three.py -> test_two",
        "tests/a/test_two.py -> tests.a.test_one",
    ]


def _bare_imports(files: list[Path], root: Path) -> list[str]:
    """``importer -> imported`` for every import of a module of ``tests/`` by its bare name
    (``import sql_cases``, as if its folder were on ``sys.path``): the tests' modules are
    imported as ``tests.<folder>.<module>``."""
    stems = {p.stem for p in files if p.stem != "__init__"}
    bad: set[str] = set()
    for path in files:
        for name in _imported(path, root):
            if name.split(".")[0] in stems:
                bad.add(f"{path.relative_to(root).as_posix()} -> {name.split('.')[0]}")
    return sorted(bad)


def test_tests_modules_are_imported_by_their_dotted_names(tmp_path: Path) -> None:
    bad = _bare_imports(_test_files(), ROOT)
    assert not bad, "import them as tests.<folder>.<module>: " + "; ".join(bad)
    (tmp_path / "tests" / "support").mkdir(parents=True)
    (tmp_path / "tests" / "support" / "helper.py").write_text("import polars\n")
    local = "def f():\n    from helper import x\n    from tests.support.helper import y\n"
    (tmp_path / "tests" / "test_a.py").write_text(local)
    files = sorted(tmp_path.rglob("*.py"))
    assert _bare_imports(files, tmp_path) == ["tests/test_a.py -> helper"]


def test_every_package_folder_has_a_test_folder() -> None:
    """``polars_rank/<x>/`` has test modules in ``tests/<x>/`` or below (or in the folder
    :data:`FOLDERS` names); every top-level module is in :data:`MODULES`."""
    missing = []
    for init in sorted(PACKAGE.rglob("__init__.py")):
        folder = init.parent.relative_to(PACKAGE).as_posix()
        if folder == ".":
            continue
        target = TESTS / FOLDERS.get(folder, folder)
        if not any(target.rglob("test_*.py")):
            missing.append(f"polars_rank/{folder} -> {target.relative_to(ROOT)}")
    for module in sorted(PACKAGE.glob("*.py")):
        folder = MODULES.get(module.stem)
        if folder is None or not any((TESTS / folder).glob("test_*.py")):
            missing.append(f"polars_rank/{module.name} -> tests/{folder or '?'}")
    assert not missing, missing


def test_every_test_folder_mirrors_the_package_or_is_listed() -> None:
    """No test module at the top of ``tests/``; every folder of ``tests/`` is a package
    folder's counterpart or one of :data:`OTHER_FOLDERS`, and a package (``__init__.py``)."""
    assert not sorted(p.name for p in TESTS.glob("test_*.py"))
    package_folders = {
        init.parent.relative_to(PACKAGE).as_posix() for init in PACKAGE.rglob("__init__.py")
    }
    unknown, not_packages = [], []
    for folder in sorted(p for p in TESTS.rglob("*") if p.is_dir()):
        relative = folder.relative_to(TESTS)
        if relative.parts[0] == "data" or "__pycache__" in relative.parts:
            continue
        name = relative.as_posix()
        if name not in package_folders and name not in OTHER_FOLDERS:
            unknown.append(name)
        if not (folder / "__init__.py").is_file():
            not_packages.append(name)
    assert not unknown, f"folders of tests/ mirroring nothing, not in OTHER_FOLDERS: {unknown}"
    assert not not_packages, f"folders of tests/ without __init__.py: {not_packages}"
    assert (TESTS / "__init__.py").is_file()
