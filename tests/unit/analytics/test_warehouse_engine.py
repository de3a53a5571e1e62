"""The deployed warehouse engine is chosen by SITELENS_WAREHOUSE_ENGINE (template parameter
WarehouseEngine): Athena unless ClickHouse is named; a query ClickHouse stops at the bounds
is a 422, as on Athena; a misspelt engine a configuration error."""

from __future__ import annotations

import pytest

from sitelens.core import config
from sitelens.data import clickhouse, warehouse


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch):
    def choose(name: str | None) -> None:
        if name is None:
            monkeypatch.delenv("SITELENS_WAREHOUSE_ENGINE", raising=False)
        else:
            monkeypatch.setenv("SITELENS_WAREHOUSE_ENGINE", name)
        config.reset()

    yield choose
    monkeypatch.delenv("SITELENS_WAREHOUSE_ENGINE", raising=False)
    config.reset()


def test_athena_unless_clickhouse_is_named(engine):
    engine(None)
    assert warehouse.dialect() == "athena"
    engine("clickhouse")
    assert warehouse.dialect() == "clickhouse"


def test_clickhouse_runs_under_athena_s_bounds(engine, monkeypatch):
    engine("clickhouse")
    asked = []
    monkeypatch.setattr(clickhouse, "run", lambda sql, limits: asked.append(limits) or [[1]])
    assert warehouse.run("SELECT 1") == [[1]]
    assert asked == [
        {
            "max_execution_time": warehouse.MAX_QUERY_SECONDS,
            "max_bytes_to_read": warehouse.MAX_SCANNED_BYTES,
        }
    ]


def test_a_query_clickhouse_stops_at_its_bounds_is_too_expensive(engine, monkeypatch):
    engine("clickhouse")

    def stopped(sql, limits):
        raise RuntimeError("Code: 307. DB::Exception: Limit for bytes to read exceeded")

    monkeypatch.setattr(clickhouse, "run", stopped)
    with pytest.raises(warehouse.TooExpensive) as raised:
        warehouse.run("SELECT 1")
    assert raised.value.status == 422

    def broken(sql, limits):
        raise RuntimeError("Code: 62. DB::Exception: Syntax error")

    monkeypatch.setattr(clickhouse, "run", broken)
    with pytest.raises(RuntimeError, match="Syntax error"):
        warehouse.run("SELECT 1")


def test_an_unknown_engine_is_a_configuration_error(engine):
    engine("bigquery")
    with pytest.raises(config.ConfigError, match="athena or clickhouse"):
        warehouse.dialect()
