"""Hits built without a table to keep the visitors' daily salts in get a fixed one."""

from __future__ import annotations

import pytest

from sitelens.data import salts


@pytest.fixture
def fixed_salt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(salts, "for_day", lambda day: b"s" * 32)
