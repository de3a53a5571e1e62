"""Docstrings stay true to the code: every name a docstring of the layer writes as code
(in backticks) and that is clearly a reference must exist.

A reference is a call (`name()`, `module.name(...)`), a private name (`_attr`) or a dotted
name whose first part is a module or an object of `sitelens` (`stats.add_chunk`,
`sitelens.data.stats`, `Context.resolve`). The first part may be a name of the enclosing
class or of the module, or any module of `sitelens` of that name (`warehouse` is
`data.warehouse` or `analytics.warehouse`); the reference holds when one of them has the
rest. A function's parameters (`hold(failures)`), builtins (`str(err)`), names of other
libraries (`re.compile`), file names (`robots.txt`) and other words in backticks (`value`,
`<batch>`) are not checked.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sitelens.analytics import counting
from sitelens.local import template

ROOT = Path(__file__).resolve().parents[2] / "layers" / "common"
PACKAGE = ROOT / "sitelens"

CODE = re.compile(r"`([^`\n]+)`")
# a dotted name, optionally called: `name`, `a.b`, `a.b()`, `check(key, importance)`
REFERENCE = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(\(.*\))?")
FILE_ENDINGS = frozenset({"txt", "json", "py", "yaml", "yml", "md", "html", "css", "js", "toml"})


def module_names() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@cache
def _modules_named(name: str) -> list[ModuleType]:
    """The modules of sitelens whose last name is `name` (`sitelens` for "sitelens")."""
    return [
        importlib.import_module(full) for full in module_names() if full.rpartition(".")[2] == name
    ]


@dataclass(frozen=True)
class Docstring:
    where: str  # "module docstring" or the function's or class's name
    text: str
    cls: str | None  # the enclosing top-level class, for methods and classes
    parameters: frozenset[str]


def docstrings(source: str) -> Iterator[Docstring]:
    """The module's docstring and those of its functions, classes and methods."""
    tree = ast.parse(source)
    text = ast.get_docstring(tree, clean=False)
    if text:
        yield Docstring("module docstring", text, None, frozenset())
    for top in tree.body:
        cls = top.name if isinstance(top, ast.ClassDef) else None
        for node in ast.walk(top):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            text = ast.get_docstring(node, clean=False)
            if not text:
                continue
            parameters: frozenset[str] = frozenset()
            if not isinstance(node, ast.ClassDef):
                arguments = node.args
                every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
                every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
                parameters = frozenset(argument.arg for argument in every)
            yield Docstring(node.name, text, cls, parameters)


def _ours(value: Any) -> bool:
    """Whether an object is a module of sitelens or defined in one."""
    if isinstance(value, ModuleType):
        return value.__name__.split(".")[0] == "sitelens"
    return str(getattr(value, "__module__", "")).split(".")[0] == "sitelens"


def _instance_attributes(cls: type) -> set[str]:
    """Fields (annotations) and `self.name = ...` assignments of a class and its bases."""
    found: set[str] = set()
    for klass in cls.__mro__:
        if not _ours(klass):
            continue
        found.update(getattr(klass, "__annotations__", {}))
        tree = ast.parse(inspect.getsource(klass).lstrip())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
            ):
                found.add(node.attr)
    return found


def _has(value: Any, path: list[str]) -> bool:
    for name in path:
        if hasattr(value, name):
            value = getattr(value, name)
        elif isinstance(value, ModuleType):  # a module its package has not imported
            try:
                value = importlib.import_module(f"{value.__name__}.{name}")
            except ModuleNotFoundError:
                return False
        else:
            # an instance's attribute holds; its own attributes are not followed
            return isinstance(value, type) and name in _instance_attributes(value)
    return True


def _candidates(module: ModuleType, doc: Docstring, first: str) -> list[Any]:
    found = []
    cls = getattr(module, doc.cls, None) if doc.cls is not None else None
    if "__getattr__" in vars(cls or object):
        return [None]  # its attributes are made on demand: nothing to check against
    if cls is not None and hasattr(cls, first):
        found.append(getattr(cls, first))
    if hasattr(module, first):
        found.append(getattr(module, first))
    return found + _modules_named(first)


def broken_references(module: ModuleType, source: str | None = None) -> list[str]:
    """The references of the module's docstrings that do not resolve, as `where: code`."""
    broken = []
    for doc in docstrings(source if source is not None else inspect.getsource(module)):
        for code in CODE.findall(doc.text):
            match = REFERENCE.fullmatch(code.strip())
            if match is None:
                continue
            dotted, call = match.group(1), match.group(2)
            first, *rest = dotted.split(".")
            if first in doc.parameters or hasattr(builtins, first):
                continue
            if rest and rest[-1] in FILE_ENDINGS:
                continue
            found = _candidates(module, doc, first)
            if not found:
                # `name()` or `_name`: a function or private name of this module, not there
                if not rest and (call or first.startswith("_")):
                    broken.append(f"{doc.where}: {code}")
                continue
            ours = [value for value in found if _ours(value)]
            if rest and ours and not any(_has(value, rest) for value in ours):
                broken.append(f"{doc.where}: {code}")
    return broken


@pytest.mark.parametrize("name", module_names())
def test_docstrings_name_only_what_exists(name: str) -> None:
    module = importlib.import_module(name)
    assert broken_references(module) == []


def test_a_drift_is_caught() -> None:
    """The check itself, on a made-up docstring of `data.stats`."""
    from sitelens.data import stats

    source = '''"""`stats.add_chunk`, `stats.no_such()`, `renamed()`, `robots.txt`, `re.x`."""


def run(work):
    """`work()`, `str(err)`, `sitelens.data.stats.counts`, `sitelens.data.nothing`,
    `_value_key`, `_gone`, `warehouse.rows`, `warehouse.nothing`."""
'''
    assert broken_references(stats, source) == [
        "module docstring: stats.no_such()",
        "module docstring: renamed()",
        "run: sitelens.data.nothing",
        "run: _gone",
        "run: warehouse.nothing",
    ]


def test_the_counting_docstring_quotes_the_queues_of_the_template() -> None:
    """The retry of a skipped hit and the kept records, in seconds and days as deployed."""
    resources = template.load()["Resources"]
    visibility = resources["HitsQueue"]["Properties"]["VisibilityTimeout"]
    retention = resources["HitsDeadLetterQueue"]["Properties"]["MessageRetentionPeriod"]
    text = " ".join((counting.__doc__ or "").split())
    assert f"visibility timeout ({visibility} s)" in text
    assert f"({retention // 86400} days)" in text
    assert retention < counting.RECORDS_KEPT_SECONDS
