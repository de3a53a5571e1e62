"""Every function's IAM policy against the AWS calls its code can make: no action or
resource missing, none granted for nothing.

The calls are found statically, by following the code from each handler file: every
function, class and module of `sitelens` it names (through imports, including imports
inside functions) and, in turn, everything those name. In what is reached:

- `client("<service>").<operation>(...)` is the action `<service>:<Operation>`;
- a write entry `{"Put" | "Update" | "Delete" | "ConditionCheck": ...}`, which
  `transact_write_items` or a single write sends, is `dynamodb:<kind>Item`;
- a setting read (`settings().accounts_table`) is the resource the template passes in its
  variable (SITELENS_ACCOUNTS_TABLE: !Ref AccountsTable).

An action is paired with the resources its function (or a helper of the same module, like
`_table()`) reads; in code written for any table (`data.records`, `data.pages`) with every
resource the handler reaches. So a grant of an action on a resource that no such pair
allows is reported as unused, and a pair the code makes on its own table as missing.

A handler of `api_handler(public=True)` never authorizes a key (`edge.http.authorize`).
The policies are those of the roles SAM generates (tests/fixtures/deployed.py), so SAM's
policy templates would be expanded as deployed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from sitelens.local import template
from tests.fixtures import deployed

ROOT = template.DEFAULT_PATH.parent
PACKAGE = ROOT / "layers" / "common" / "sitelens"
WRITE_ACTIONS = {
    "Put": "dynamodb:PutItem",
    "Update": "dynamodb:UpdateItem",
    "Delete": "dynamodb:DeleteItem",
    "ConditionCheck": "dynamodb:ConditionCheckItem",
}
# What a function may act on outside the stack: the SES identities digests are sent from.
OUTSIDE = "(outside the stack)"
OUTSIDE_ACTIONS = {"ses:SendEmail"}
# boto3 services whose IAM actions carry another prefix (SES v2's are `ses:`).
IAM_PREFIXES = {"sesv2": "ses"}
# Operations IAM authorizes as another action (SQS's batches as their single call).
IAM_ACTIONS = {
    "sqs:SendMessageBatch": "sqs:SendMessage",
    "s3:ListObjectsV2": "s3:ListBucket",
    "s3:DownloadFile": "s3:GetObject",  # boto3's managed transfers
    "s3:UploadFile": "s3:PutObject",
    "s3:DeleteObjects": "s3:DeleteObject",
}
# Carries no action of its own: IAM checks each of its entries (WRITE_ACTIONS).
NO_ACTION = {("dynamodb", "transact_write_items")}
# Reached in the code but never run for this function, and so not granted.
NOT_RUN = {
    ("ListWebsitesFunction", "dynamodb:BatchGetItem"): "websites' indexes hold whole records "
    "(no `slim_indexes`), so a page never fetches them again",
    ("ListProjectsFunction", "dynamodb:BatchGetItem"): "projects' index holds whole rows too",
}

# Actions a service takes with the caller's credentials while serving a call the code makes:
# granted beside it, never called by the code itself.
IMPLIED = {
    "athena:StartQueryExecution": {
        "glue:GetDatabase",
        "glue:GetTable",
        "glue:GetPartitions",
        "s3:GetObject",
        "s3:ListBucket",
        "s3:GetBucketLocation",
        "s3:PutObject",
        "s3:AbortMultipartUpload",
    },
    "s3:PutObject": {"s3:AbortMultipartUpload"},  # an upload_file of a large file
}

SOURCE = template.load()
Unit = tuple[str, str]  # (module, top-level name); "" for the module's own statements


def _setting_resources() -> dict[str, str]:
    """Settings attribute -> logical id of the resource the template passes in its variable
    (in Globals, or to the functions that alone need it)."""
    variables = dict(SOURCE["Globals"]["Function"]["Environment"]["Variables"])
    for resource in SOURCE["Resources"].values():
        if resource["Type"] == "AWS::Serverless::Function":
            own = (resource["Properties"].get("Environment") or {}).get("Variables") or {}
            variables.update(own)
    found = {}
    for name, value in variables.items():
        if isinstance(value, dict) and value.get("Ref") in SOURCE["Resources"]:
            found[name.removeprefix("SITELENS_").lower()] = value["Ref"]
    return found


SETTING_RESOURCES = _setting_resources()


@dataclass
class Module:
    name: str
    aliases: dict[str, str]  # local name -> the dotted name it was imported as
    defs: dict[str, ast.AST]  # top-level functions and classes
    body: list[ast.stmt]  # every other top-level statement

    @classmethod
    def parse(cls, name: str, path: Path) -> Module:
        tree = ast.parse(path.read_text(), str(path))
        aliases = {}
        for node in ast.walk(tree):  # imports inside functions count too
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    aliases[local] = alias.name if alias.asname else local
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        defs = {n.name: n for n in tree.body if isinstance(n, kinds)}
        body = [n for n in tree.body if not isinstance(n, kinds)]
        return cls(name, aliases, defs, body)


@dataclass
class Facts:
    """What one unit does itself."""

    names: set[Unit] = field(default_factory=set)
    actions: set[str] = field(default_factory=set)
    resources: set[str] = field(default_factory=set)


@dataclass
class Reached:
    units: dict[Unit, Facts] = field(default_factory=dict)

    @property
    def actions(self) -> set[str]:
        return {a for facts in self.units.values() for a in facts.actions}

    @property
    def resources(self) -> set[str]:
        return {r for facts in self.units.values() for r in facts.resources}

    def pairs(self) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
        """(action, resource) pairs the code may make, and those it makes for certain: an
        action on the resources of its unit and of the same module's units it names, else
        (code for any table) on every resource reached."""
        possible, certain = set(), set()
        for unit, facts in self.units.items():
            own = set(facts.resources)
            for name in facts.names:
                if name[0] == unit[0] and name in self.units:
                    own |= self.units[name].resources
            for action in facts.actions:
                possible |= {(action, r) for r in own or self.resources}
                certain |= {(action, r) for r in own}
        return possible, certain


class Code:
    """The layer's modules, and what is reachable from a handler file."""

    def __init__(self) -> None:
        self.modules: dict[str, Module] = {}
        for path in PACKAGE.rglob("*.py"):
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            self.modules[name] = Module.parse(name, path)

    def resolve(self, dotted: str, depth: int = 0) -> Unit | None:
        """The unit a dotted name stands for, following re-exports; None outside sitelens."""
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            module = self.modules.get(".".join(parts[:cut]))
            if module is None:
                continue
            rest = parts[cut:]
            if not rest:
                return (module.name, "")
            if rest[0] in module.defs:
                return (module.name, rest[0])  # a method or attribute: its whole class
            if rest[0] in module.aliases and depth < 10:
                return self.resolve(".".join([module.aliases[rest[0]], *rest[1:]]), depth + 1)
            return (module.name, "")  # a module-level constant
        return None

    def reach(self, handler: Module, skip: set[Unit]) -> Reached:
        reached = Reached()
        self.modules[handler.name] = handler
        try:
            todo: list[Unit] = [(handler.name, ""), *((handler.name, n) for n in handler.defs)]
            while todo:
                unit = todo.pop()
                if unit in reached.units or unit in skip:
                    continue
                module = self.modules[unit[0]]
                facts = reached.units[unit] = Facts()
                for node in [module.defs[unit[1]]] if unit[1] else module.body:
                    facts.names.update(self._facts(module, node, facts))
                todo.extend(facts.names)
                todo.append((module.name, ""))
        finally:
            del self.modules[handler.name]
        return reached

    def _facts(self, module: Module, tree: ast.AST, facts: Facts) -> Iterator[Unit]:
        """The units `tree` names; its AWS actions and resources go into `facts`."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Name | ast.Attribute):
                unit = self._named(module, node)
                if unit is not None:
                    yield unit
            if isinstance(node, ast.Attribute) and node.attr in SETTING_RESOURCES:
                facts.resources.add(SETTING_RESOURCES[node.attr])
            if isinstance(node, ast.Call):
                call = _client_call(node)
                if call and call not in NO_ACTION:
                    service, operation = call
                    words = "".join(w.title() for w in operation.split("_"))
                    action = f"{IAM_PREFIXES.get(service, service)}:{words}"
                    facts.actions.add(IAM_ACTIONS.get(action, action))
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if (
                        isinstance(key, ast.Constant)
                        and key.value in WRITE_ACTIONS
                        and not isinstance(value, ast.Constant)
                    ):
                        facts.actions.add(WRITE_ACTIONS[key.value])

    def _named(self, module: Module, node: ast.Name | ast.Attribute) -> Unit | None:
        chain: list[str] = []
        while isinstance(node, ast.Attribute):
            chain.insert(0, node.attr)
            node = node.value  # type: ignore[assignment]
        if not isinstance(node, ast.Name):
            return None
        if node.id in module.defs:
            return (module.name, node.id)
        if node.id in module.aliases:
            return self.resolve(".".join([module.aliases[node.id], *chain]))
        return None


def _client_call(node: ast.Call) -> tuple[str, str] | None:
    """("dynamodb", "update_item") for `client("dynamodb").update_item(...)`."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)):
        return None
    inner = func.value
    if not (isinstance(inner.func, ast.Name) and inner.func.id == "client" and inner.args):
        return None
    service = inner.args[0]
    return (service.value, func.attr) if isinstance(service, ast.Constant) else None


def _is_public(handler: Module) -> bool:
    for node in handler.defs.values():
        for decorator in getattr(node, "decorator_list", []):
            if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") == (
                "api_handler"
            ):
                for keyword in decorator.keywords:
                    if keyword.arg == "public" and getattr(keyword.value, "value", False):
                        return True
    return False


@cache
def code() -> Code:
    """The layer's modules, parsed when a test first asks rather than at collection."""
    return Code()


@cache
def stack() -> dict[str, Any]:
    """The deployed template, translated when a test first asks rather than at collection."""
    return deployed.translated()


def code_of(function: str) -> Reached:
    props = SOURCE["Resources"][function]["Properties"]
    module_name, _, _ = props.get("Handler", "app.handler").rpartition(".")
    path = ROOT / props["CodeUri"] / f"{module_name}.py"
    handler = Module.parse(f"handler:{function}", path)
    skip = {("sitelens.edge.http", "authorize")} if _is_public(handler) else set()
    return code().reach(handler, skip)


def _resource_ids(value: Any) -> Iterator[str]:
    for item in value if isinstance(value, list) else [value]:
        if "Fn::GetAtt" in item:
            yield item["Fn::GetAtt"][0]
        elif "Ref" in item:
            yield item["Ref"]
        elif "Fn::Sub" in item:  # "${ReportsTable.Arn}/index/*"
            # "${AWS::Region}" and the like are not resources; an ARN naming none of the
            # stack's is of something outside it (the SES identity of the sender's address)
            yield from re.findall(r"\$\{(?!AWS::)(\w+)", item["Fn::Sub"]) or [OUTSIDE]
        else:
            raise AssertionError(f"a resource this test cannot read: {item}")


def policy_of(function: str) -> set[tuple[str, str]]:
    """(action, resource logical id) pairs of the function's role's inline policies."""
    role = stack()["Resources"][function]["Properties"]["Role"]["Fn::GetAtt"][0]
    granted = set()
    for policy in stack()["Resources"][role]["Properties"].get("Policies", []):
        # Lambda itself sends a failed asynchronous run to EventInvokeConfig's OnFailure
        # queue with the role (test_deployment checks that queue); the code never calls it.
        if policy["PolicyName"] == f"{function}EventInvokeConfigOnFailureSQSPolicy":
            continue
        for statement in policy["PolicyDocument"]["Statement"]:
            assert statement["Effect"] == "Allow"
            listed = statement["Action"]
            for action in [listed] if isinstance(listed, str) else listed:
                granted |= {(action, r) for r in _resource_ids(statement["Resource"])}
    return granted


FUNCTIONS = sorted(
    name
    for name, resource in SOURCE["Resources"].items()
    if resource["Type"] == "AWS::Serverless::Function"
)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_policy_grants_exactly_the_calls_the_code_makes(function):
    code = code_of(function)
    granted = policy_of(function)
    not_run = {action for (name, action) in NOT_RUN if name == function}
    assert not_run <= code.actions, f"stale NOT_RUN entry for {function}"
    possible, certain = code.pairs()
    possible = {(a, r) for a, r in possible if a not in not_run}
    possible |= {(a, OUTSIDE) for a in code.actions & OUTSIDE_ACTIONS}
    implied = {extra for action in code.actions for extra in IMPLIED.get(action, ())}
    needed = code.actions - not_run
    assert code.resources - {r for _, r in granted} == set(), f"{function} lacks resources"
    # a resource reached only through an implied action (Athena reads the Glue database)
    via_implied = {r for extra, r in granted if extra in implied}
    through = {(action, r) for action, r in certain if r in via_implied}
    granted = {(a, r) for a, r in granted if a not in implied}
    actions = {a for a, _ in granted}
    assert needed - actions == set(), f"{function} is not granted what its code calls"
    assert actions - needed == set(), f"{function} is granted what its code never calls"
    assert certain - not_run - granted - through == set(), f"{function} lacks these grants"
    assert granted - possible == set(), f"{function} is granted these for nothing"


def test_the_analysis_sees_calls_through_re_exports_and_transactions():
    create = code_of("CreateWebsiteFunction")
    # websites.create -> data.websites -> data.records.create -> transactions.write({"Put"})
    assert "dynamodb:PutItem" in create.actions
    assert ("sitelens.data.transactions", "write") in create.units
    event = code_of("EventFunction")  # public: no key, no account, no rate limit
    assert ("sitelens.edge.auth", "authorize") not in event.units
    # it reads, creates and destroys the visitors' daily salts, in their own table only
    assert {a for a, r in event.pairs()[0] if r == "SaltsTable"} == {
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:DeleteItem",
    }
    assert not {a for a, r in event.pairs()[0] if r == "AccountsTable"}
    assert ("sitelens.analytics.tracking", "record_hit") in event.units
