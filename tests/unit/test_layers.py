"""The package's layers, read from its import statements: each package imports only the
layers below its own, no two packages import each other (directly or round a cycle), and
only the adapters reach a storage backend. Every import counts, inside a function, under
``TYPE_CHECKING`` or named in a ``"module:attribute"`` string: a lazy import is still a
dependency.

The checker itself is tested on a package written for the purpose, so that a wrong import
is known to fail the check."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from tests.paths import REPOSITORY

PACKAGE = REPOSITORY / "src" / "hierdoc"

LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(layer.split())
    for layer in (
        "__main__ cli mcp tools eval",  # adapters
        "hierdoc api views auth",  # the Python API (``hierdoc`` is the package's facade)
        "search",
        "pipeline",
        "store providers",
        "config inputs faults",
        "text",
        "models errors",
    )
)
"""Top to bottom: a module may import its own layer (no cycle between packages) and the
layers below it. ``pipeline`` is above ``store``: ingest writes through the store's
protocols, and a store knows nothing of the pipeline."""

BACKENDS = ("hierdoc.store.local", "hierdoc.store.postgres")
"""Storage backends: opened by name through :func:`hierdoc.store.open_store`, imported
only by the store package itself and by the adapters (``hierdoc check``, ``migrate``)."""

Graph = Mapping[str, set[str]]
MODULE_STRING = re.compile(r"(hierdoc(?:\.\w+)+):\w+")
"""A module named in a string to be imported later ("hierdoc.cli.evaluate:eval_command", as
the CLI's lazy commands and the store's backend registry do): an import all the same."""


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.Module, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``tree`` imports, relative imports resolved; ``from
    package import name`` counts as an import of the module ``package.name`` when it is one."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = module.split(".")[: None if is_package else -1]
            if node.level:
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = MODULE_STRING.fullmatch(node.value)
            found.update([named.group(1)] if named else [])
    return found & known


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module of the package at ``root`` and the package's modules it imports."""
    files = {module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    known = set(files)
    return {
        module: imported(ast.parse(path.read_text()), module, path.name == "__init__.py", known)
        for module, path in files.items()
    }


def unit(module: str) -> str:
    """The package (or top-level module) a module belongs to: ``hierdoc.store.local.names``
    -> ``store``; the package's own ``__init__`` is ``hierdoc``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def layer_of(name: str, layers: Iterable[frozenset[str]]) -> int | None:
    return next((depth for depth, layer in enumerate(layers) if name in layer), None)


def wrong_imports(graph: Graph, layers: tuple[frozenset[str], ...]) -> list[str]:
    """Each import of a module in a higher layer than the importer's, one line each."""
    found = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            mine, theirs = layer_of(unit(module), layers), layer_of(unit(target), layers)
            if mine is not None and theirs is not None and theirs < mine:
                found.append(f"{module} imports {target}: {unit(target)} is above {unit(module)}")
    return found


def unit_cycles(graph: Graph) -> list[list[str]]:
    """The packages that import each other round a cycle: each strongly connected set of
    two or more packages (Tarjan's algorithm), sorted."""
    edges: dict[str, set[str]] = {}
    for module, targets in graph.items():
        edges.setdefault(unit(module), set())
        edges[unit(module)] |= {unit(t) for t in targets} - {unit(module)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            members = []
            while not members or members[-1] != node:
                members.append(stack.pop())
            if len(members) > 1:
                found.append(sorted(members))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


def backend_imports(graph: Graph) -> list[str]:
    """Imports of a backend from outside the store package and the adapters."""
    adapters = LAYERS[0]
    return [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if target.startswith(BACKENDS) and unit(module) not in adapters | {"store"}
    ]


# -- the package --------------------------------------------------------------------------


def test_each_package_imports_only_the_layers_below_it() -> None:
    assert wrong_imports(import_graph(PACKAGE), LAYERS) == []


def test_no_two_packages_import_each_other() -> None:
    assert unit_cycles(import_graph(PACKAGE)) == []


def test_every_package_has_a_layer() -> None:
    units = {unit(module) for module in import_graph(PACKAGE)}
    assert {u for u in units if layer_of(u, LAYERS) is None} == set()


def test_only_the_store_and_the_adapters_import_a_backend() -> None:
    assert backend_imports(import_graph(PACKAGE)) == []


def test_the_pipeline_and_search_see_the_store_through_its_protocols() -> None:
    graph = import_graph(PACKAGE)
    reached = {
        target
        for module, targets in graph.items()
        if unit(module) in {"pipeline", "search"}
        for target in targets
        if unit(target) == "store"
    }
    assert reached == {"hierdoc.store.base"}


def test_the_text_layer_imports_only_the_records() -> None:
    graph = import_graph(PACKAGE)
    imports = {unit(t) for m, targets in graph.items() if unit(m) == "text" for t in targets}
    assert imports <= {"text", "models"}


# -- the checker, on a package written for it ---------------------------------------------


def write_package(root: Path, modules: Mapping[str, str]) -> Path:
    """A package ``hierdoc`` under ``root`` with the given modules (dotted name -> source);
    a name that others continue is a package (``__init__.py``), any other a module file."""
    package = root / "hierdoc"
    names = {"hierdoc": "", **modules}
    for name, source in names.items():
        path = root.joinpath(*name.split("."))
        if any(other.startswith(f"{name}.") for other in names):
            path.mkdir(parents=True, exist_ok=True)
            (path / "__init__.py").write_text(source)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.with_suffix(".py").write_text(source)
    return package


@pytest.mark.parametrize(
    ("modules", "wrong"),
    [
        (  # a lazy import up the layers
            {
                "hierdoc.search": "",
                "hierdoc.search.names": "",
                "hierdoc.store": "",
                "hierdoc.store.base": "def f():\n    from ..search.names import name_keys\n",
            },
            ["hierdoc.store.base imports hierdoc.search.names: search is above store"],
        ),
        (  # imports down the layers, relative and absolute
            {
                "hierdoc.text": "",
                "hierdoc.search": "from .text import names\nimport hierdoc.models\n",
                "hierdoc.text.names": "",
                "hierdoc.models": "",
            },
            [],
        ),
    ],
    ids=["up", "down"],
)
def test_an_import_up_the_layers_is_wrong(
    tmp_path, modules: dict[str, str], wrong: list[str]
) -> None:
    graph = import_graph(write_package(tmp_path, modules))
    assert all(graph[name] or not source for name, source in modules.items())
    assert wrong_imports(graph, LAYERS) == wrong


@pytest.mark.parametrize(
    ("modules", "cycle"),
    [
        (  # two adapters importing each other
            {
                "hierdoc.cli": "from .mcp import server\n",
                "hierdoc.mcp": "",
                "hierdoc.mcp.server": "from hierdoc.cli import main\n",
            },
            ["cli", "mcp"],
        ),
        (  # a command registered by name for a lazy import, importing the CLI back
            {
                "hierdoc.cli": 'LAZY = {"eval": "hierdoc.eval.command:eval_command"}\n',
                "hierdoc.eval": "",
                "hierdoc.eval.command": "from ..cli import main\n",
            },
            ["cli", "eval"],
        ),
    ],
    ids=["imports", "named-in-a-string"],
)
def test_two_packages_of_one_layer_importing_each_other_are_a_cycle(
    tmp_path, modules: dict[str, str], cycle: list[str]
) -> None:
    graph = import_graph(write_package(tmp_path, modules))
    assert wrong_imports(graph, LAYERS) == []
    assert unit_cycles(graph) == [cycle]


def test_a_wrong_import_added_to_the_package_is_found() -> None:
    graph = {module: set(targets) for module, targets in import_graph(PACKAGE).items()}
    graph["hierdoc.text.names"].add("hierdoc.search.searcher")
    graph["hierdoc.pipeline.chunk"].add("hierdoc.store.local.records")
    assert wrong_imports(graph, LAYERS) == [
        "hierdoc.text.names imports hierdoc.search.searcher: search is above text"
    ]
    assert unit_cycles(graph) == [["pipeline", "search", "store", "text"]]
    assert backend_imports(graph) == ["hierdoc.pipeline.chunk imports hierdoc.store.local.records"]
