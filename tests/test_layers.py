"""The import structure of lazyjit: layered one way, without cycles.

* the layers contract of ``pyproject.toml`` (``[tool.importlinter]``, the one ``.ci/run``
  checks with ``lint-imports``) is kept: a module imports only its own layer and those
  below, whether at module level or inside a function;
* no import cycle among lazyjit's modules, even within one layer;
* an import of a lazyjit module inside a function says why on its line (a comment).
"""
from __future__ import annotations

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "lazyjit")


def test_layers_contract(capsys):
    """``lint-imports``: every import goes down the layers (the contract's report on
    failure names the chain of imports that goes up)."""
    cli = pytest.importorskip("importlinter.cli")
    code = cli.lint_imports(config_filename=os.path.join(ROOT, "pyproject.toml"),
                            no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert code == 0, report


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_cycles():
    grimp = pytest.importorskip("grimp")
    g = grimp.build_graph("lazyjit")
    graph = {m: set(g.find_modules_directly_imported_by(m)) for m in g.modules
             if m == "lazyjit" or m.startswith("lazyjit.")}
    graph = {m: {t for t in targets if t in graph} for m, targets in graph.items()}
    assert _cycles(graph) == []


def _python_files():
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def test_function_level_imports_say_why():
    """Imports of lazyjit modules belong at the top of a module; one inside a function
    (an optional dependency's, deferred) carries a comment saying why."""
    bare = []
    for path in _python_files():
        text = open(path, encoding="utf-8").read()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.col_offset == 0:
                continue
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names]
            if any(n == "lazyjit" or n.startswith("lazyjit.") for n in names) and \
                    "#" not in lines[node.end_lineno - 1]:
                bare.append(f"{os.path.relpath(path, ROOT)}:{node.lineno}")
    assert bare == []
