"""The per-site fair share at the edge: token buckets by website id, in the container."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from sitelens.analytics import fairshare
from sitelens.analytics.fairshare import SiteShare
from sitelens.core import config


def admitted(share: SiteShare, website_id: int, hits: int, now: float) -> int:
    return sum(share.admit(website_id, now) for _ in range(hits))


def test_a_site_gets_its_burst_then_its_rate():
    share = SiteShare(rate=10, burst=50)
    assert admitted(share, 1, 80, now=0.0) == 50
    assert not share.admit(1, now=0.0)
    assert admitted(share, 1, 80, now=1.0) == 10  # a second refills `rate` tokens
    assert admitted(share, 1, 80, now=1.05) == 0
    assert admitted(share, 1, 80, now=1.1) == 1


def test_a_flooding_site_leaves_the_others_their_share():
    share = SiteShare(rate=10, burst=20)
    assert admitted(share, 1, 1000, now=0.0) == 20
    assert admitted(share, 2, 20, now=0.0) == 20
    assert admitted(share, 3, 5, now=0.5) == 5


def test_an_idle_site_saves_up_no_more_than_its_burst():
    share = SiteShare(rate=10, burst=20)
    assert admitted(share, 1, 20, now=0.0) == 20
    assert admitted(share, 1, 100, now=3600.0) == 20


def test_a_clock_stepping_back_adds_no_tokens():
    share = SiteShare(rate=10, burst=5)
    assert admitted(share, 1, 5, now=100.0) == 5
    assert admitted(share, 1, 5, now=50.0) == 0
    assert admitted(share, 1, 5, now=100.25) == 2


def test_retry_after_is_the_whole_seconds_until_the_next_token():
    share = SiteShare(rate=2, burst=1)
    assert share.admit(1, now=0.0)
    assert not share.admit(1, now=0.0)
    assert share.retry_after(1, now=0.0) == 1
    slow = SiteShare(rate=0.25, burst=1)
    assert slow.admit(1, now=0.0)
    assert slow.retry_after(1, now=0.0) == 4
    assert slow.retry_after(1, now=3.5) == 1


def test_memory_is_bounded_by_forgetting_the_least_recently_seen_site():
    share = SiteShare(rate=1, burst=3, max_sites=3)
    for website_id in (1, 2, 3):
        assert admitted(share, website_id, 3, now=0.0) == 3
    assert share.admit(1, now=0.0) is False  # 1 is now the most recently seen
    assert share.admit(4, now=0.0)  # forgets 2
    assert len(share) == 3
    assert admitted(share, 2, 5, now=0.0) == 3  # back with a full bucket, forgetting 3
    assert admitted(share, 1, 5, now=0.0) == 0  # never forgotten: still empty


def test_the_injected_clock_is_read_when_no_time_is_given():
    moments = iter([0.0, 0.0, 0.5])
    share = SiteShare(rate=2, burst=1, clock=lambda: next(moments))
    assert share.admit(1)
    assert not share.admit(1)
    assert share.admit(1)


def test_threads_never_take_more_than_the_burst():
    share = SiteShare(rate=1, burst=1000)
    counts: list[int] = []

    def worker() -> None:
        counts.append(admitted(share, 7, 400, now=0.0))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(counts) == 1000


@pytest.fixture
def from_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    config.reset()
    fairshare.reset()
    yield monkeypatch
    monkeypatch.undo()
    config.reset()
    fairshare.reset()


def test_the_container_share_is_sized_by_the_settings(from_environment):
    from_environment.setenv("SITELENS_SITE_HITS_PER_SECOND", "5")
    from_environment.setenv("SITELENS_SITE_HITS_BURST", "10")
    assert sum(fairshare.admit(9, now=0.0) for _ in range(30)) == 10
    assert sum(fairshare.admit(9, now=1.0) for _ in range(30)) == 5
    assert fairshare.retry_after(9, now=1.0) == 1


def test_the_defaults_are_documented_and_zero_turns_the_share_off(from_environment):
    from_environment.delenv("SITELENS_SITE_HITS_PER_SECOND", raising=False)
    from_environment.delenv("SITELENS_SITE_HITS_BURST", raising=False)
    settings = config.settings()
    assert (settings.site_hits_per_second, settings.site_hits_burst) == (100, 1000)
    config.reset()
    fairshare.reset()
    from_environment.setenv("SITELENS_SITE_HITS_PER_SECOND", "0")
    assert all(fairshare.admit(1, now=0.0) for _ in range(5000))


@pytest.mark.parametrize(
    ("rate", "burst"), [("fast", "10"), ("-1", "10"), ("100001", "10"), ("10", "0"), ("10", "x")]
)
def test_malformed_shares_are_refused_by_name(from_environment, rate, burst):
    from_environment.setenv("SITELENS_SITE_HITS_PER_SECOND", rate)
    from_environment.setenv("SITELENS_SITE_HITS_BURST", burst)
    with pytest.raises(config.ConfigError, match="SITELENS_SITE_HITS_"):
        config.settings()
