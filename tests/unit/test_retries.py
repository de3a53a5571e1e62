"""transactions.attempts: the one retry loop of data access, and its backoffs."""

from __future__ import annotations

import pytest

from sitelens.data import transactions
from tests.fixtures.clocks import SteppedClock


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SteppedClock:
    fake = SteppedClock()
    monkeypatch.setattr(transactions, "time", fake)
    return fake


def test_a_count_of_attempts_backs_off_between_them_only(clock):
    assert list(transactions.attempts(4)) == [0, 1, 2, 3]
    assert len(clock.slept) == 3
    ceilings = [transactions.BACKOFF_BASE_SECONDS * 2**n for n in range(3)]
    assert all(0 <= slept <= ceiling for slept, ceiling in zip(clock.slept, ceilings, strict=True))


def test_a_success_stops_without_a_backoff(clock):
    for attempt in transactions.attempts():
        if attempt == 1:
            break
    assert len(clock.slept) == 1


def test_a_time_bound_keeps_trying_until_it_has_passed(clock, monkeypatch):
    monkeypatch.setattr(transactions.random, "uniform", lambda low, high: high)
    tried = list(transactions.attempts(seconds=0.5, cap=0.1))
    assert clock.now >= 0.5 and clock.now - clock.slept[-1] < 0.5
    assert len(tried) == len(clock.slept)  # the last backoff ran past the bound: no attempt
