"""The warehouse's SQL text: the fixed words written as `schema.literal` would write them,
and SQLGlot loaded only by a statement for the warehouse, not by the query functions'
start (the fast paths answer most queries from the counters without it)."""

from __future__ import annotations

from sitelens.analytics.warehouse import schema
from tests.fixtures import fresh


def test_the_fixed_words_are_their_literals() -> None:
    assert schema.literal(schema.PAGEVIEW) == schema.PAGEVIEW_SQL
    assert schema.literal(schema.ENGAGEMENT) == schema.ENGAGEMENT_SQL
    assert schema.literal("it's") == "'it''s'"


def test_sqlglot_is_loaded_by_a_statement_not_by_the_query_functions() -> None:
    code = (
        "import sys\n"
        "from sitelens.analytics import funnels, queries\n"
        "print('sqlglot' in sys.modules)\n"
        "from sitelens.analytics.warehouse import raw\n"
        "raw.rendered('SELECT 1', 'athena')\n"
        "print('sqlglot' in sys.modules)\n"
    )
    loaded = fresh.printed(code)
    assert loaded.split() == ["False", "True"]
