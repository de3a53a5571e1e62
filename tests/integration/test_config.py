"""Settings: every required value is explicit, and a handler without one fails its cold
start by name instead of falling back to a default table or a development secret."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sitelens.core import config
from sitelens.local import gateway

HANDLERS = [
    "functions/websites/list/app.py",
    "functions/gateway/fallback/app.py",
    "functions/analytics/aggregate/app.py",
    "functions/tasks/run/app.py",
]


@pytest.fixture
def fresh_settings() -> Iterator[None]:
    config.reset()
    yield
    config.reset()


@pytest.mark.parametrize("handler", HANDLERS)
@pytest.mark.parametrize("missing", ["SITELENS_WEBSITES_TABLE", "SITELENS_SIGNING_KEYS"])
def test_a_handler_without_a_required_setting_fails_at_init_by_name(
    aws_env, fresh_settings, monkeypatch, handler, missing
):
    for entry in config.REQUIRED:  # the setting, however it may be given
        names = entry if isinstance(entry, tuple) else (entry,)
        if config.PREFIX + names[0] == missing:
            for name in (*names, *(config.DEPRECATED.get(n, "") for n in names)):
                monkeypatch.delenv(config.PREFIX + name, raising=False)
    monkeypatch.setenv("SITELENS_HITS_QUEUE_URL", "  ")  # blank is missing too
    with pytest.raises(config.ConfigError) as failure:
        gateway.load_module(gateway.ROOT / handler)
    assert missing in str(failure.value) and "SITELENS_HITS_QUEUE_URL" in str(failure.value)


def test_every_handler_loads_with_the_template_environment(aws_env, fresh_settings):
    for path in sorted(gateway.ROOT.glob("functions/*/*/app.py")):
        assert callable(gateway.load_module(path).handler), path


def test_a_setting_read_without_its_variable_names_it(fresh_settings, monkeypatch):
    monkeypatch.delenv("SITELENS_REPORTS_TABLE", raising=False)
    with pytest.raises(config.ConfigError, match="SITELENS_REPORTS_TABLE is not set"):
        config.settings().reports_table


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SITELENS_ALLOW_PRIVATE_URLS", "maybe"),
        ("SITELENS_KEY_CACHE_SECONDS", "soon"),
        ("SITELENS_KEY_CACHE_SECONDS", "-1"),
        ("SITELENS_KEY_CACHE_SECONDS", "11"),
    ],
)
def test_malformed_optional_settings_are_refused(fresh_settings, monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(config.ConfigError, match=name):
        config.settings()


def test_optional_settings_have_documented_defaults(fresh_settings, monkeypatch):
    for name in ("SITELENS_ALLOW_PRIVATE_URLS", "SITELENS_KEY_CACHE_SECONDS", "SITELENS_GEOIP_DB"):
        monkeypatch.delenv(name, raising=False)
    settings = config.settings()
    assert (settings.allow_private_urls, settings.key_cache_seconds, settings.geoip_db) == (
        False,
        5.0,
        "",
    )


@pytest.mark.parametrize(
    ("engine", "listed", "counted"),
    [("clickhouse", "12, 40", {12, 40}), ("athena", "12", set()), ("clickhouse", "", set())],
)
def test_websites_are_counted_in_clickhouse_only_when_listed_under_it(
    monkeypatch, engine, listed, counted
):
    monkeypatch.setenv("SITELENS_WAREHOUSE_ENGINE", engine)
    monkeypatch.setenv("SITELENS_CLICKHOUSE_COUNTED_SITES", listed)
    config.reset()
    assert config.settings().clickhouse_counted_sites == counted
    monkeypatch.setenv("SITELENS_WAREHOUSE_ENGINE", "clickhouse")
    monkeypatch.setenv("SITELENS_CLICKHOUSE_COUNTED_SITES", "12,www")
    config.reset()
    with pytest.raises(config.ConfigError, match="ids, commas"):
        config.settings().clickhouse_counted_sites
    config.reset()
