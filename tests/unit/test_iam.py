"""Every function's IAM policy against the AWS calls its code can make: no action or
resource missing, none granted for nothing.

The calls are found statically, by following the code from each handler file: every
function, class and module of `sitelens` it names (through imports, including imports
inside functions) and, in turn, everything those name. In what is reached:

- `client("<service>").<operation>(...)` is the action `<service>:<Operation>`;
- a write entry `{"Put" | "Update" | "Delete" | "ConditionCheck": ...}`, which
  `transact_write_items` or a single write sends, is `dynamodb:<kind>Item`;
- a setting read (`settings().accounts_table`) is the resource the template passes in its
  variable (SITELENS_ACCOUNTS_TABLE: !Ref AccountsTable), or the SSM parameter it names
  (SITELENS_SEAL_KEY_PARAMETER: !Sub "/${AWS::StackName}/seal-key", which CloudFormation
  does not create), as "parameter/${AWS::StackName}/seal-key"; only `ssm:` actions are paired
  with a parameter, and only with one (a unit choosing between a KMS key and a parameter
  names both).

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
# The tables whose grants name the items they reach (a LeadingKeys condition): the accounts
# table holds the keys' hashes, beside the rate limits every keyed request writes.
KEYED_TABLES = {"AccountsTable"}
# Partition keys (in an item or a key, and a query's value): the accounts table's and the
# stats table's, which holds the hits' counters beside the share pages' kept dashboards.
PARTITION_KEYS = {"pk", ":pk", "series", ":series"}
WRITES = {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}
# A public function (no key) writes only the items it names, by a LeadingKeys condition,
# but where a key cannot say more than the table does:
PUBLIC_WRITES_ANY_ITEM = {
    ("UnsubscribeFunction", "WebsitesTable"): "each website of the account its signed link "
    "names: records are keyed by account id, which IAM cannot tell from another",
    ("SearchConsoleCallbackFunction", "WebsitesTable"): "the Search Console connection of "
    "the website its signed state names, in the account's `#searchconsole:<account>` partition "
    "(a key computed from the state's account, which IAM cannot tell from another)",
    ("EventFunction", "SaltsTable"): "the table holds only the days' salts (keyed by date), "
    "which this function alone makes and destroys",
}
# Where a request names its item or its query's partition (None: `query(**query)`).
KEY_ARGUMENTS = {"Key", "Item", "ExpressionAttributeValues", "ExclusiveStartKey", None}
ANY_KEY = "*"  # a grant with no LeadingKeys condition, or a key the code computes
LEADING_KEYS = "ForAllValues:StringLike"
# What a function may act on outside the stack: the SES identities digests are sent from.
OUTSIDE = "(outside the stack)"
OUTSIDE_ACTIONS = {"ses:SendEmail", "sts:AssumeRole"}  # a customer's role: exports
PARAMETER = "parameter/"  # an SSM parameter of the stack, by its name: "parameter/${...}/x"
# Template parameters that name something outside the stack the functions act on, by the
# parameter's name: the ClickHouse server's secret (WarehouseEngine=clickhouse).
OUTSIDE_PARAMETERS = {"ClickHouseSecretArn"}
# boto3 services whose IAM actions carry another prefix (SES v2's are `ses:`).
IAM_PREFIXES = {"sesv2": "ses"}
# Operations IAM authorizes as another action (SQS's batches as their single call).
IAM_ACTIONS = {
    "sqs:SendMessageBatch": "sqs:SendMessage",
    "sqs:DeleteMessageBatch": "sqs:DeleteMessage",
    "s3:ListObjectsV2": "s3:ListBucket",
    "s3:DownloadFile": "s3:GetObject",  # boto3's managed transfers
    "s3:UploadFile": "s3:PutObject",
    "s3:GeneratePresignedUrl": "s3:GetObject",  # signs a GET made later with its credentials
    "s3:DeleteObjects": "s3:DeleteObject",
    "lambda:Invoke": "lambda:InvokeFunction",  # the render function, synchronously
}
# Carries no action of its own: IAM checks each of its entries (WRITE_ACTIONS).
NO_ACTION = {("dynamodb", "transact_write_items")}
# Reached in the code but never run for this function, and so not granted.
NOT_RUN = {
    ("ListWebsitesFunction", "dynamodb:BatchGetItem"): "websites' indexes hold whole records "
    "(no `slim_indexes`), so a page never fetches them again",
    ("ListProjectsFunction", "dynamodb:BatchGetItem"): "projects' index holds whole rows too",
    ("AggregatorFunction", "sqs:SendMessage"): "it parks hits (data.queues.park_hit) only when "
    "it reads a stream: StreamAggregatorFunction (HitStream=kinesis)",
    ("HitsDrainFunction", "sqs:SendMessage"): "it drains the queue (HitStream=queue): parking "
    "is the stream's (StreamAggregatorFunction)",
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


def setting_resources(function: str) -> dict[str, str]:
    """Settings attribute -> logical id of the resource the template passes the function in
    its variable (in Globals, or its own; either branch of an `!If`)."""
    variables = dict(SOURCE["Globals"]["Function"]["Environment"]["Variables"])
    own = SOURCE["Resources"][function]["Properties"].get("Environment") or {}
    variables.update(own.get("Variables") or {})
    found = {}
    for name, value in variables.items():
        branches = value.get("Fn::If", [None])[1:] if isinstance(value, dict) else []
        for ref in [value, *branches]:
            named = ref.get("Ref") if isinstance(ref, dict) else None
            if named in SOURCE["Resources"] or named in OUTSIDE_PARAMETERS:
                found[name.removeprefix("SITELENS_").lower()] = named
            elif name.endswith("_PARAMETER") and isinstance(ref, dict) and "Fn::Sub" in ref:
                found[name.removeprefix("SITELENS_").lower()] = PARAMETER + ref["Fn::Sub"][1:]
    return found


@dataclass
class Module:
    name: str
    aliases: dict[str, str]  # local name -> the dotted name it was imported as
    defs: dict[str, ast.AST]  # top-level functions, classes and constants
    body: list[ast.stmt]  # every other top-level statement
    constants: set[str]  # which of `defs` are constants (a COLLECTION names its table)

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
        defs: dict[str, ast.AST] = {n.name: n for n in tree.body if isinstance(n, kinds)}
        constants = {  # `COLLECTION = Collection(table=...)`: a unit of its own
            n.targets[0].id: n
            for n in tree.body
            if isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name)
        }
        body = [n for n in tree.body if not isinstance(n, kinds) and n not in constants.values()]
        defs.update(constants)
        return cls(name, aliases, defs, body, set(constants))


@dataclass
class Facts:
    """What one unit does itself."""

    names: set[Unit] = field(default_factory=set)
    # (action, the partition keys its request names; none when the request was built
    # elsewhere, as `every_item(query)` runs a query its caller wrote)
    calls: set[tuple[str, frozenset[str]]] = field(default_factory=set)
    resources: set[str] = field(default_factory=set)
    keys: set[str] = field(default_factory=set)  # the partition keys the unit builds
    constant: bool = False  # a module's constant, which may name a table for its users

    @property
    def actions(self) -> set[str]:
        return {action for action, _ in self.calls}


Call = tuple[str, str, str]  # (action, resource, partition key pattern; ANY_KEY unsaid)


@dataclass
class Reached:
    units: dict[Unit, Facts] = field(default_factory=dict)
    module_keys: dict[str, set[str]] = field(default_factory=dict)
    module_resources: dict[str, set[str]] = field(default_factory=dict)

    @property
    def actions(self) -> set[str]:
        return {a for facts in self.units.values() for a in facts.actions}

    @property
    def resources(self) -> set[str]:
        return {r for facts in self.units.values() for r in facts.resources}

    def own_resources(self, unit: Unit) -> set[str]:
        """The resources a unit names, itself or through its module's units it names (a
        `_table()`) and the constants it names (`data.websites.COLLECTION`)."""
        facts = self.units[unit]
        own = set(facts.resources)
        for name in facts.names:
            if name in self.units and (name[0] == unit[0] or self.units[name].constant):
                own |= self.units[name].resources
        if not own and facts.calls:  # sends a request its module built (`realtime.put`)
            own = self.module_resources[unit[0]]
        return own

    def calls(self) -> tuple[set[Call], set[str]]:
        """Every (action, resource, partition key) the code makes, and the actions it makes
        on no resource the analysis can name.

        A call is on the resources of its unit (`own_resources`); code written for any table
        (`data.records`, `clients.every_item`, `data.caps`), which names none, on those of
        each unit that reaches it. Its partition keys are those its request names, else
        those its unit or module builds, else those of the unit whose table it is on."""
        made: set[Call] = set()
        placed: set[tuple[Unit, str]] = set()
        for root in self.units:
            resources = self.own_resources(root)
            if not resources:
                continue
            root_keys = self._keys_of(root)
            todo, seen = [root], set()
            while todo:
                unit = todo.pop()
                if unit in seen:
                    continue
                seen.add(unit)
                for action, keys in self.units[unit].calls:
                    placed.add((unit, action))
                    for key in keys or self._keys_of(unit) or root_keys or {ANY_KEY}:
                        made |= {(action, resource, key) for resource in resources}
                todo.extend(
                    name
                    for name in self.units[unit].names
                    if name in self.units and not self.own_resources(name)
                )
        unplaced = {
            action
            for unit, facts in self.units.items()
            for action, _ in facts.calls
            if (unit, action) not in placed
        }
        return made, unplaced

    def _keys_of(self, unit: Unit) -> set[str]:
        return self.units[unit].keys or self.module_keys.get(unit[0], set())


class Code:
    """The layer's modules, and what is reachable from a handler file."""

    def __init__(self) -> None:
        self.settings: dict[str, str] = {}
        self.modules: dict[str, Module] = {}
        self._tree_keys: dict[int, set[str]] = {}  # by the tree's id: the trees live as long
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

    def reach(self, handler: Module, skip: set[Unit], settings: dict[str, str]) -> Reached:
        """What the handler reaches; `settings`: the resources its variables name."""
        self.settings = settings
        reached = Reached()
        self.modules[handler.name] = handler
        try:
            todo: list[Unit] = [(handler.name, ""), *((handler.name, n) for n in handler.defs)]
            while todo:
                unit = todo.pop()
                if unit in reached.units or unit in skip:
                    continue
                module = self.modules[unit[0]]
                facts = reached.units[unit] = Facts(constant=unit[1] in module.constants)
                for node in [module.defs[unit[1]]] if unit[1] else module.body:
                    facts.names.update(self._facts(module, node, facts))
                todo.extend(facts.names)
                todo.append((module.name, ""))
            for name in {unit[0] for unit in reached.units}:
                module = self.modules[name]
                trees = [*module.defs.values(), *module.body]
                reached.module_keys[name] = {k for t in trees for k in self.keys_of(module, t)}
                reached.module_resources[name] = {
                    self.settings[node.attr]
                    for t in trees
                    for node in ast.walk(t)
                    if isinstance(node, ast.Attribute) and node.attr in self.settings
                }
        finally:
            del self.modules[handler.name]
        return reached

    def keys_of(self, module: Module, tree: ast.AST) -> set[str]:
        """`_keys` of a unit's tree, once a process (every handler reaches the same code)."""
        if id(tree) not in self._tree_keys:
            self._tree_keys[id(tree)] = _keys(module, tree, _assignments(tree))
        return self._tree_keys[id(tree)]

    def _facts(self, module: Module, tree: ast.AST, facts: Facts) -> Iterator[Unit]:
        """The units `tree` names; its AWS calls, resources and keys go into `facts`."""
        assigned = _assignments(tree)
        facts.keys |= self.keys_of(module, tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name | ast.Attribute):
                unit = self._named(module, node)
                if unit is not None:
                    yield unit
            if isinstance(node, ast.Attribute) and node.attr in self.settings:
                facts.resources.add(self.settings[node.attr])
            if isinstance(node, ast.Call):
                call = _client_call(node)
                if call and call not in NO_ACTION:
                    service, operation = call
                    words = "".join(w.title() for w in operation.split("_"))
                    action = f"{IAM_PREFIXES.get(service, service)}:{words}"
                    keys = {
                        k
                        for kw in node.keywords
                        if kw.arg in KEY_ARGUMENTS
                        for k in _keys(module, kw.value, assigned)
                    }
                    facts.calls.add((IAM_ACTIONS.get(action, action), frozenset(keys)))
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if (
                        isinstance(key, ast.Constant)
                        and key.value in WRITE_ACTIONS
                        and not isinstance(value, ast.Constant)
                    ):
                        keys = _keys(module, value, assigned)
                        facts.calls.add((WRITE_ACTIONS[key.value], frozenset(keys)))

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


def _assignments(tree: ast.AST) -> dict[str, ast.expr]:
    """Local name -> the value last assigned to it in `tree` (`key = {"pk": ...}`)."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name):
            found[target.id] = value
    return found


def _keys(module: Module, tree: ast.AST, assigned: dict[str, ast.expr], depth: int = 0) -> set[str]:
    """The partition keys `tree` builds, as patterns ("KEY#*"): in `{"pk": {"S": ...}}`
    (or `":pk"`, a query's), through the names assigned in its unit and the module's
    functions it calls (`_lookup_key(hash)`)."""
    found: set[str] = set()
    if depth > 4:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value in PARTITION_KEYS:
                    if isinstance(value, ast.Dict) and len(value.values) == 1:  # {"S": ...}
                        value = value.values[0]
                    found.add(_pattern(value))
        elif isinstance(node, ast.Name) and _builds_key(module, assigned.get(node.id)):
            found |= _keys(module, assigned[node.id], assigned, depth + 1)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            helper = module.defs.get(node.func.id)
            if helper is not None and helper is not tree:
                found |= _keys(module, helper, _assignments(helper), depth + 1)
    return found


def _builds_key(module: Module, value: ast.expr | None) -> bool:
    """A literal dict, or a call of its module's (`_lookup_key(old_hash)`): not any value
    that merely came from a request (an answer's item)."""
    if isinstance(value, ast.Call):
        return isinstance(value.func, ast.Name) and value.func.id in module.defs
    return isinstance(value, ast.Dict)


def _pattern(value: ast.expr) -> str:
    """`f"KEY#{key_hash}"` -> "KEY#*", `"MAILED"` -> "MAILED"; ANY_KEY for what the code
    computes."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    if isinstance(value, ast.JoinedStr):
        prefix = ""
        for part in value.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                return prefix + "*"
            prefix += part.value
        return prefix
    return ANY_KEY


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


def handler_of(function: str) -> Module:
    props = SOURCE["Resources"][function]["Properties"]
    module_name, _, _ = props.get("Handler", "app.handler").rpartition(".")
    return Module.parse(f"handler:{function}", ROOT / props["CodeUri"] / f"{module_name}.py")


def code_of(function: str) -> Reached:
    handler = handler_of(function)
    skip = {("sitelens.edge.http", "authorize")} if _is_public(handler) else set()
    return code().reach(handler, skip, setting_resources(function))


def _resource_ids(value: Any) -> Iterator[str]:
    resources = stack()["Resources"]
    for item in value if isinstance(value, list) else [value]:
        if "Fn::GetAtt" in item:
            yield item["Fn::GetAtt"][0]
        elif "Ref" in item:
            yield item["Ref"]
        elif "Fn::If" in item:  # a resource the stack has under a condition (DigestMail)
            branches = item["Fn::If"][1:]
            yield from _resource_ids([b for b in branches if b != {"Ref": "AWS::NoValue"}])
        elif "Fn::Sub" in item and ":parameter/" in str(item["Fn::Sub"]):  # the stack's own
            yield PARAMETER + str(item["Fn::Sub"]).split(":parameter/", 1)[1]
        elif "Fn::Sub" in item:  # "${ReportsTable.Arn}/index/*"
            text = item["Fn::Sub"] if isinstance(item["Fn::Sub"], str) else item["Fn::Sub"][0]
            # "${AWS::Region}" and the like are not resources; an ARN naming none of the
            # stack's is of something outside it (the SES identity digests are sent from)
            named = [n for n in re.findall(r"\$\{(?!AWS::)(\w+)", text) if n in resources]
            yield from named or [OUTSIDE]
        else:
            raise AssertionError(f"a resource this test cannot read: {item}")


def _leading_keys(statement: dict[str, Any]) -> list[str]:
    """The partition keys a statement's LeadingKeys condition allows; [ANY_KEY] without one."""
    condition = statement.get("Condition")
    if condition is None:
        return [ANY_KEY]
    assert list(condition) == [LEADING_KEYS], f"a condition this test cannot read: {condition}"
    (allowed,) = condition[LEADING_KEYS].values()
    assert list(condition[LEADING_KEYS]) == ["dynamodb:LeadingKeys"], condition
    # ForAllValues holds for a request with no keys at all (a Scan): only keyed actions here
    listed = statement["Action"]
    assert not {a for a in listed if a.endswith(("Scan", "Stream", "Table"))}, statement
    return [allowed] if isinstance(allowed, str) else allowed


def _statements(function: str) -> Iterator[dict[str, Any]]:
    """The statements of the function's role: its inline policies and the stack's managed
    policies it is given."""
    role = stack()["Resources"][function]["Properties"]["Role"]["Fn::GetAtt"][0]
    properties = stack()["Resources"][role]["Properties"]
    for policy in properties.get("Policies", []):
        # Lambda itself sends a failed asynchronous run to EventInvokeConfig's OnFailure
        # queue with the role (test_deployment checks that queue); the code never calls it.
        if policy["PolicyName"] != f"{function}EventInvokeConfigOnFailureSQSPolicy":
            yield from _either(policy["PolicyDocument"]["Statement"])
    for arn in properties.get("ManagedPolicyArns", []):
        if "Ref" not in arn:
            continue  # AWS's own (logs, X-Ray), which SAM attaches
        managed = stack()["Resources"][arn["Ref"]]
        assert managed["Type"] == "AWS::IAM::ManagedPolicy", arn
        yield from _either(managed["Properties"]["PolicyDocument"]["Statement"])


def _either(statements: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The statements, each branch of a conditional one (`!If [HitsOnQueue, ...]`) included:
    the code runs under either value of the condition."""
    for statement in statements:
        if "Fn::If" in statement:
            branches = statement["Fn::If"][1:]
            yield from _either([b for b in branches if b != {"Ref": "AWS::NoValue"}])
        else:
            yield statement


def policy_of(function: str) -> set[Call]:
    """(action, resource logical id, partition key) of every grant of the function's role
    (a Deny grants nothing: `test_a_function_creates_a_parameter_but_never_overwrites_it`)."""
    granted = set()
    for statement in _statements(function):
        if statement["Effect"] == "Deny":
            continue
        assert statement["Effect"] == "Allow"
        listed = statement["Action"]
        for action in [listed] if isinstance(listed, str) else listed:
            for resource in _resource_ids(statement["Resource"]):
                granted |= {(action, resource, key) for key in _leading_keys(statement)}
    return granted


FUNCTIONS = sorted(
    name
    for name, resource in SOURCE["Resources"].items()
    if resource["Type"] == "AWS::Serverless::Function"
)


def _as_granted(calls: set[Call], keyed_writes: set[str]) -> set[Call]:
    """Partition keys count on KEYED_TABLES, and in writes to `keyed_writes`; other grants
    name whole tables."""
    return {
        (a, r, key if r in KEYED_TABLES or (r in keyed_writes and a in WRITES) else ANY_KEY)
        for a, r, key in calls
    }


def unmatched(function: str) -> tuple[set[Call], set[Call]]:
    """The calls of the function's code that no grant allows, and the grants no call uses."""
    code = code_of(function)
    not_run = {action for (name, action) in NOT_RUN if name == function}
    assert not_run <= code.actions, f"stale NOT_RUN entry for {function}"
    made, unnamed = code.calls()
    assert unnamed - OUTSIDE_ACTIONS == set(), f"{function} calls on a table this test cannot name"
    made = {call for call in made if call[0] not in not_run and _fits(call)}
    public = _is_public(handler_of(function))
    keyed_writes = {r for a, r, _ in made if a in WRITES} if public else set()
    keyed_writes -= {table for name, table in PUBLIC_WRITES_ANY_ITEM if name == function}
    made = _as_granted(made, keyed_writes)
    made |= {(a, OUTSIDE, ANY_KEY) for a in code.actions & OUTSIDE_ACTIONS}
    granted = policy_of(function)
    # Athena reads the Glue database and the events with the caller's credentials: granted
    # beside the query, which names that database (settings().events_database)
    implied = {extra for action in code.actions for extra in IMPLIED.get(action, ())}
    read_for_it = {r for a, r, _ in granted if a in implied}
    made = {c for c in made if not (c[0].startswith("athena:") and c[1] in read_for_it)}
    # (an action the code also makes itself, like the task function's s3:PutObject of a
    # website's tombstone beside its digests' queries, is held to the code's calls too)
    made_itself = {a for a, _, _ in made}
    granted = _as_granted(
        {call for call in granted if call[0] not in implied or call[0] in made_itself},
        keyed_writes,
    )
    return made - granted, granted - made


def _fits(call: Call) -> bool:
    """Whether the action is one of its resource's kind: SSM's on a parameter, only."""
    return call[0].startswith("ssm:") == call[1].startswith(PARAMETER)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_policy_grants_exactly_the_calls_the_code_makes(function):
    missing, unused = unmatched(function)
    assert missing == set(), f"{function} makes these calls without a grant"
    assert unused == set(), f"{function} is granted these and never calls them"


def test_the_analysis_sees_calls_through_re_exports_and_transactions():
    create = code_of("CreateWebsiteFunction")
    # websites.create -> data.websites -> data.records.create -> transactions.write({"Put"})
    assert "dynamodb:PutItem" in create.actions
    assert ("sitelens.data.transactions", "write") in create.units
    # code for any table (data.records) on the table of the collection that calls it
    assert ("dynamodb:PutItem", "WebsitesTable", ANY_KEY) in create.calls()[0]
    event = code_of("EventFunction")  # public: no key, no account, no rate limit
    assert ("sitelens.edge.auth", "authorize") not in event.units
    # it reads, creates and destroys the visitors' daily salts, in their own table only
    assert {a for a, r, _ in event.calls()[0] if r == "SaltsTable"} == {
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:DeleteItem",
    }
    assert not {a for a, r, _ in event.calls()[0] if r == "AccountsTable"}
    # and who is on a site now (data.realtime), its presences' items only
    assert {(a, key) for a, r, key in event.calls()[0] if r == "StatsTable"} == {
        ("dynamodb:UpdateItem", "live#*")
    }
    assert ("sitelens.analytics.tracking", "record_hit") in event.units


def test_the_analysis_reads_the_items_each_call_names():
    rotate = {(a, key) for a, r, key in code_of("RotateKeyFunction").calls()[0]}
    # keys.rotate: a new lookup, the old one's overlap or deletion, the entry and listing
    assert {("dynamodb:PutItem", "KEY#*"), ("dynamodb:DeleteItem", "KEY#*")} <= rotate
    assert {("dynamodb:UpdateItem", "KEYS#*"), ("dynamodb:UpdateItem", "KEYS")} <= rotate
    assert ("dynamodb:DeleteItem", "KEYS") not in rotate  # a listing outlives its key
    # data.caps guards an account's adds on whichever table holds them
    webhook = code_of("CreateWebhookFunction").calls()[0]
    assert ("dynamodb:GetItem", "WebhooksTable", "ADDS#*") in webhook


def _writes_on(function: str, table: str) -> set[str]:
    """The partition keys the function's role may write in `table` (ANY_KEY: any item)."""
    return {key for a, r, key in policy_of(function) if r == table and a in WRITES}


# The keys API: the only functions that write a key's lookup (KEY#<hash>) or its listing;
# and the members API's, which revokes a removed member's keys and stores a new member's
# first key (docs/teams.md).
KEY_MANAGERS = {
    "CreateKeyFunction",
    "RevokeKeyFunction",
    "RotateKeyFunction",
    "MembersFunction",
    "MemberInvitationFunction",
}


@pytest.mark.parametrize("function", FUNCTIONS)
def test_only_the_keys_api_writes_a_keys_hash(function):
    writes = _writes_on(function, "AccountsTable")
    assert ANY_KEY not in writes, f"{function} may write any item of the accounts table"
    if function not in KEY_MANAGERS:
        assert not writes & {"KEY#*", "KEYS"}, f"{function} may write a key's lookup or listing"


@pytest.mark.parametrize("function", [f for f in FUNCTIONS if _is_public(handler_of(f))])
def test_a_public_function_writes_only_the_items_it_names(function):
    for table in {r for a, r, _ in policy_of(function) if a in WRITES} - {OUTSIDE}:
        if (function, table) not in PUBLIC_WRITES_ANY_ITEM:
            assert ANY_KEY not in _writes_on(function, table), f"{function} writes all {table}"


def test_email_goes_out_from_the_stacks_identity_only():
    senders = 0
    for function in FUNCTIONS:
        for statement in _statements(function):
            if "ses:SendEmail" not in statement["Action"]:
                continue
            senders += 1
            listed = statement["Resource"]
            for resource in listed if isinstance(listed, list) else [listed]:
                text = str(resource)
                assert "*" not in text, f"{function} may send from any identity: {text}"
                assert "identity/${Identity}" in text or "configuration-set/${DigestMail}" in text
    assert senders  # the digests, a dead endpoint's notice, traffic alerts


OVERWRITE_DENIED = {"StringEquals": {"ssm:Overwrite": "true"}}


@pytest.mark.parametrize("function", FUNCTIONS)
def test_a_function_creates_a_parameter_but_never_overwrites_it(function):
    """A function may create the stack's keyring or seal key at its first use, never replace
    it (tokens signed or secrets sealed under it would stop verifying): each parameter it may
    put, it is denied putting with Overwrite (only an operator's rotation overwrites)."""
    statements = list(_statements(function))
    puts = {r for a, r, _ in policy_of(function) if a == "ssm:PutParameter"}
    denied = set()
    for statement in statements:
        if statement["Effect"] != "Deny":
            continue
        assert statement["Action"] == ["ssm:PutParameter"], statement
        assert statement["Condition"] == OVERWRITE_DENIED, statement
        denied |= set(_resource_ids(statement["Resource"]))
    assert puts == denied
    assert all(resource.startswith(PARAMETER) for resource in puts)
