"""The deployed warehouse engine is chosen by SITELENS_WAREHOUSE_ENGINE (template parameter
WarehouseEngine): Athena unless ClickHouse is named, a misspelt engine a configuration
error. (The ClickHouse path itself: tests/integration/analytics/test_clickhouse_deployed.py.)"""

from __future__ import annotations

import pytest

from sitelens.core import config
from sitelens.data import warehouse


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch):
    def choose(name: str | None) -> None:
        if name is None:
            monkeypatch.delenv("SITELENS_WAREHOUSE_ENGINE", raising=False)
        else:
            monkeypatch.setenv("SITELENS_WAREHOUSE_ENGINE", name)
        config.reset()

    saved = warehouse.local_engine()
    warehouse.use(None)
    yield choose
    warehouse.use(saved)
    monkeypatch.delenv("SITELENS_WAREHOUSE_ENGINE", raising=False)
    config.reset()


def test_athena_unless_clickhouse_is_named(engine):
    engine(None)
    assert warehouse.dialect() == "athena"
    engine("clickhouse")
    assert warehouse.dialect() == "clickhouse"


def test_an_unknown_engine_is_a_configuration_error(engine):
    engine("bigquery")
    with pytest.raises(config.ConfigError, match="athena or clickhouse"):
        warehouse.dialect()
