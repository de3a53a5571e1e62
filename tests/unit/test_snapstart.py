"""SnapStart on the MCP server (docs/mcp.md, "Cold start"): under CostProfile=standard only,
on the alias its routes invoke, each replaced version deleted; and each environment restored
from the snapshot reseeds `random`, which every restored copy would otherwise share."""

from __future__ import annotations

import importlib.util
import random
import sys
import types
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from sitelens.core import snapshots
from sitelens.local import resources as local_resources
from sitelens.local import template
from tests.bench import deployment
from tests.fixtures import deployed

MCP_APP = template.DEFAULT_PATH.parent / "functions" / "mcp" / "app.py"


@cache
def _translated() -> dict[str, Any]:
    return deployed.translated()


def resources(profile: str) -> dict[str, Any]:
    """The stack CloudFormation creates under this CostProfile."""
    resolved = deployment.resolve(_translated(), {"CostProfile": profile})
    return resolved["Resources"]  # type: ignore[no-any-return]


def snapstart(profile: str) -> dict[str, str]:
    """Each function's SnapStart ApplyOn under this profile (functions without it left out)."""
    return {
        name: r["Properties"]["SnapStart"]["ApplyOn"]
        for name, r in resources(profile).items()
        if r["Type"] == "AWS::Lambda::Function" and "SnapStart" in r["Properties"]
    }


def test_only_the_standard_profile_snapstarts_and_only_the_mcp_server():
    assert snapstart("standard") == {"McpFunction": "PublishedVersions"}
    assert snapstart("lean") == {}
    # the cost model reads the same (tests/bench/cost.py prices the cache by it)
    for profile, expected in (("standard", True), ("lean", False)):
        functions = deployment.describe(deployment.resolve(_translated(), {"CostProfile": profile}))
        assert functions.functions["McpFunction"].snap_start is expected
        assert not any(f.snap_start for n, f in functions.functions.items() if n != "McpFunction")


@pytest.mark.parametrize("profile", ["standard", "lean"])
def test_the_mcp_routes_invoke_the_alias_of_the_published_version(profile):
    found = resources(profile)
    [alias] = [n for n, r in found.items() if r["Type"] == "AWS::Lambda::Alias"]
    assert found[alias]["Properties"]["Name"] == "live"
    version = found[alias]["Properties"]["FunctionVersion"]["Fn::GetAtt"][0]
    # a replaced version is deleted, its snapshot with it: one cached snapshot, not one a deploy
    assert found[version]["Type"] == "AWS::Lambda::Version"
    assert found[version]["DeletionPolicy"] == "Delete"
    permissions = [
        r["Properties"]
        for r in found.values()
        if r["Type"] == "AWS::Lambda::Permission" and "McpFunction" in str(r["Properties"])
    ]
    assert len(permissions) == 2  # /mcp on both APIs
    assert all(p["FunctionName"] == {"Ref": alias} for p in permissions)
    for api in ("AnalyticsApi", "SeoApi"):
        body = str(found[api]["Properties"]["Body"]["paths"]["/mcp"])
        assert alias in body and "McpFunction.Arn" not in body, api


def resources_env() -> dict[str, str]:
    return local_resources.function_environment(template.load(), {})


def _hooks(monkeypatch: pytest.MonkeyPatch) -> list[Callable[[], None]]:
    """A stand-in for Lambda's snapshot_restore_py, recording the after-restore hooks."""
    registered: list[Callable[[], None]] = []
    module = types.ModuleType(snapshots.HOOKS_MODULE)
    module.register_after_restore = registered.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, snapshots.HOOKS_MODULE, module)
    return registered


def test_without_lambda_s_runtime_hooks_nothing_is_registered(monkeypatch):
    monkeypatch.setitem(sys.modules, snapshots.HOOKS_MODULE, None)  # import fails
    assert snapshots.register() is False


def test_a_restored_environment_draws_other_numbers_than_its_snapshot(monkeypatch):
    registered = _hooks(monkeypatch)
    assert snapshots.register() is True
    assert registered == [snapshots.reseed]
    snapshot = random.getstate()  # what every environment restored from it starts with
    without_hook = [random.random() for _ in range(4)]
    random.setstate(snapshot)
    assert [random.random() for _ in range(4)] == without_hook  # the same jitter, in step
    random.setstate(snapshot)
    registered[0]()
    assert [random.random() for _ in range(4)] != without_hook


def test_the_mcp_handler_registers_the_hook_at_init(monkeypatch):
    registered = _hooks(monkeypatch)
    for name, value in resources_env().items():  # what its init checks is configured
        monkeypatch.setenv(name, value)
    spec = importlib.util.spec_from_file_location("mcp_app_under_test", MCP_APP)
    assert spec and spec.loader
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert registered == [snapshots.reseed]


def test_the_cost_model_prices_the_snapshot_under_the_standard_profile_only():
    from tests.bench import cost

    for profile in ("standard", "lean"):
        found = deployment.describe(deployment.resolve(_translated(), {"CostProfile": profile}))
        lines = cost.snapstart_lines(found)
        if profile == "lean":
            assert lines == []
            continue
        cache, restores = lines
        assert (cache.path, cache.price, restores.price) == (
            "fixed",
            cost.SNAPSTART_CACHE,
            cost.SNAPSTART_RESTORE,
        )
        assert cache.quantity == 1.0 * cost.SECONDS  # 1,024 MB, a 730-hour month
        assert round(cache.usd, 2) == 3.95
        assert restores.quantity == cost.SNAPSTART_RESTORES.value
