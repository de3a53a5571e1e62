"""Every way into the code declares the scope its reads run under (`core.scopes`): each
function of template.yaml is an `api_handler` (its key's scope; public ones the system's)
or a `scopes.system` entry point, every thread pool of the layer carries its submitter's
scope, and a read outside every declared scope answers nothing."""

from __future__ import annotations

import contextvars
import threading
from pathlib import Path
from typing import Any

import pytest

from sitelens.core import scopes
from sitelens.data import websites as stored_websites
from sitelens.local import gateway, template

FUNCTIONS = sorted(
    (name, props["Properties"])
    for name, props in template.load()["Resources"].items()
    if props["Type"] == "AWS::Serverless::Function"
)
LAYER = Path(scopes.__file__).resolve().parents[1]


@pytest.mark.parametrize(("name", "props"), FUNCTIONS, ids=[name for name, _ in FUNCTIONS])
def test_every_function_declares_the_scope_it_reads_under(aws_env, name, props):
    module, _, function = props.get("Handler", "app.handler").rpartition(".")
    handler = getattr(
        gateway.load_module(gateway.ROOT / props["CodeUri"] / f"{module}.py"), function
    )
    public = "public=True" in (gateway.ROOT / props["CodeUri"] / f"{module}.py").read_text()
    assert getattr(handler, "scope", None) == ("system" if public or not _keyed(props) else "key")


def _keyed(props: dict[str, Any]) -> bool:
    """Whether the function answers an API route (else a queue or a schedule invokes it)."""
    return any(event["Type"] in ("Api", "HttpApi") for event in props.get("Events", {}).values())


def test_no_thread_pool_of_the_layer_starts_its_threads_without_a_scope():
    plain = [
        str(path.relative_to(LAYER))
        for path in LAYER.rglob("*.py")
        if "ThreadPoolExecutor(" in path.read_text() and path.name != "scopes.py"
    ]
    assert plain == [], "use scopes.ThreadPool, which carries the submitter's scope"


def test_a_pool_carries_its_submitters_scope_and_a_plain_thread_has_none():
    limited = scopes.Scope("read", websites=frozenset({5}))
    with scopes.within(limited), scopes.ThreadPool(max_workers=2) as pool:
        assert list(pool.map(lambda _: scopes.current(), range(3))) == [limited] * 3
    caught: list[BaseException] = []

    def read() -> None:
        try:
            scopes.current()
        except scopes.Undeclared as err:
            caught.append(err)

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    assert len(caught) == 1


def test_a_read_outside_every_scope_answers_nothing(aws_env, analytics, account):
    analytics.post("/api/v1/websites", {"domain": "one.example"})
    assert [w["domain"] for w in stored_websites.of_account(account.id)] == ["one.example"]
    unscoped = contextvars.Context()  # a context where nothing was declared
    with pytest.raises(scopes.Undeclared):
        unscoped.run(stored_websites.of_account, account.id)
    with pytest.raises(scopes.Undeclared):
        unscoped.run(stored_websites.get, account.id, 1)


def test_a_system_entry_point_restores_what_was_before():
    seen = scopes.system(scopes.current)
    unscoped = contextvars.Context()
    assert unscoped.run(seen) is scopes.SYSTEM
    with pytest.raises(scopes.Undeclared):
        unscoped.run(scopes.current)
