"""The package's shape: no import cycles, no module hidden behind a function of its name, typed
section classes that match the key table, and a public API whose examples run."""

import ast
import dataclasses
import doctest
import inspect
import subprocess
import sys
import types
import typing
from pathlib import Path

import pytest

import rxbisect
from conftest import needs_engine
from rxbisect.vocab import sections, tables
from rxbisect.vocab.scenario import SECTIONS

PACKAGE = Path(rxbisect.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imported(module: str, path: Path) -> set[str]:
    """The package modules `module` imports by name (at any depth of its code): for
    `from X import a`, X.a when that is a module, else X. The parent packages' __init__ an
    import runs on the way are not counted: only what the code names."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            out |= {f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                    for a in node.names}
    return {m for m in out if m in MODULES and m != module}


def import_graph() -> dict[str, set[str]]:
    return {m: _imported(m, p) for m, p in MODULES.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while not comp or comp[-1] != v:
                comp.append(stack.pop())
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_one_that_imports_it_back():
    graph = import_graph()
    assert "rxbisect.vocab.scenario" in graph["rxbisect.engines.engine"]  # the graph is read
    assert cycles(graph) == []


def test_no_module_is_made_callable_or_hidden_by_a_function_of_its_name():
    for name in (m for m in MODULES if not m.endswith("__main__")):  # those run a command
        module = __import__(name, fromlist=["_"])
        assert type(module) is types.ModuleType, f"{name} is a {type(module).__name__}"
    for name in rxbisect.__all__:
        assert f"rxbisect.{name}" not in MODULES, f"rxbisect.{name} is a module and an API name"


@pytest.mark.parametrize("module", ["rxbisect", "rxbisect.study"])
def test_the_packages_run_as_programs(module):
    """`python -m rxbisect` is `rxb`; `python -m rxbisect.study` is `make run`."""
    p = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and p.stdout.startswith("usage: "), p.stderr


@pytest.mark.parametrize("section", SECTIONS)
def test_each_section_class_declares_the_keys_of_the_table(section):
    """sections.py states names and types; scenario_keys.toml states keys, types, defaults."""
    cls = getattr(sections, section.capitalize())
    table = tables.SCENARIO_KEYS[section]
    assert [f.name for f in dataclasses.fields(cls)] == list(table)
    kinds = {"bool": bool, "int": int, "float": float, "string": str, "enum": str,
             "list": tuple[int, ...]}
    for name, hint in typing.get_type_hints(cls).items():
        k = table[name]
        want = kinds[k["type"]] | sections.Auto if "auto" in k else kinds[k["type"]]
        assert hint == want, f"{section}.{name}: {hint} in sections.py, {want} in the table"


API = [rxbisect.sim, rxbisect.sweep, rxbisect.repro, rxbisect.report, rxbisect.fidelity,
       rxbisect.size, rxbisect.dark, rxbisect.trace_stats, rxbisect.trace_gen]


def test_every_api_function_is_documented_with_an_example():
    for fn in API:
        examples = doctest.DocTestFinder().find(fn, globs={})[0].examples
        assert examples, f"{fn.__module__}.{fn.__name__} has no docstring example"


def _run_examples(fn) -> None:
    globs = {**vars(inspect.getmodule(fn)), "rxbisect": rxbisect}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(fn, globs=globs):
        runner.run(test)
    assert runner.failures == 0, f"{fn.__module__}.{fn.__name__}: see the failure above"


@pytest.mark.parametrize("fn", [rxbisect.size, rxbisect.dark, rxbisect.trace_stats],
                         ids=lambda f: f.__name__)
def test_the_calculators_examples_run(fn):
    _run_examples(fn)


@needs_engine
@pytest.mark.parametrize("fn", [rxbisect.sim, rxbisect.sweep, rxbisect.repro, rxbisect.report,
                                rxbisect.fidelity, rxbisect.trace_gen],
                         ids=lambda f: f.__name__)
def test_the_engine_examples_run(fn):
    _run_examples(fn)
