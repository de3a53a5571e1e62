"""Politeness, kept per host across every crawl of every account: one slot a host, with a
rate and a concurrency (the fetcher's part of a crawl).

- **Rate.** Fetches from a host start at least its interval apart, whichever worker, run
  or account makes them (`data.slots`, one item a host). The interval is the larger of
  `1 / SITELENS_AUDIT_RATE` and the host's robots.txt crawl-delay (at most
  `MAX_CRAWL_DELAY`): the audited site's for its pages, an external host's own for links
  to it (`externals`). A run whose `max_rate` (pages a second) asks for a slower pace
  books its own steps further apart: a run's setting can only make it slower.
- **Concurrency.** In one worker, at most `SITELENS_AUDIT_HOST_CONCURRENCY` fetches of a
  host at once (one at a time with a crawl-delay, each begun at least the delay after the
  previous one ended, however late a busy machine runs a thread). Across workers the slot
  bounds it: starts are an interval apart, so at most `duration / interval` fetches of a
  host are in flight together (at the default 20 a second, 6 for pages answering in
  300 ms; 200 only if every fetch ran to the fetcher's 10 s deadline).
- **Horizon.** A batch books its steps' slots by host, as far as `HORIZON` seconds ahead;
  a step whose slot would come later is put off: sent again, delayed until about then
  (`put_off`), so that no worker sleeps long for a busy host, and the worker's timeout
  (300 s) is never near. Putting a step off acknowledges its message: it is sent again,
  not failed, so it never counts towards the dead-letter queue's three deliveries.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from sitelens.audits import externals
from sitelens.core import metrics
from sitelens.core.config import settings
from sitelens.core.log import logger
from sitelens.data import slots
from sitelens.seo import fetch

MAX_CRAWL_DELAY = 20.0  # seconds; a longer crawl-delay is honoured as 20 s
HORIZON = 10.0  # seconds a worker may wait for a host's slot; later slots are put off
# A host's first slot is booked this far ahead of the booking, so that its fetch starts at
# the time booked, not after it (the booking's round trip, the thread's start): the next
# slot, booked from this one, is then at least an interval after the request itself.
LEAD = 0.05

T = TypeVar("T")


@dataclass(frozen=True)
class Planned:
    """A step to fetch in this batch: its message, its host and its slot's time."""

    message_id: str
    step: dict[str, Any]
    host: str
    at: float


@dataclass(frozen=True)
class Later:
    """A step put off: sent again, `delay` seconds from now, for `reason` (the metric's)."""

    message_id: str
    step: dict[str, Any]
    delay: float
    reason: str


class Gate:
    """One host's fetches in this worker: each waits for its slot, then for one of the
    host's `concurrency` places, and with a crawl-delay for the delay since the previous
    fetch of the host ended."""

    def __init__(self, concurrency: int, delay: float) -> None:
        self.places = threading.BoundedSemaphore(1 if delay else concurrency)
        self.delay = delay
        self.ended = 0.0

    def run(self, fetcher: Callable[[], T], at: float) -> T:
        """`fetcher()` at `at` or later, within the gate."""
        _sleep_until(at)
        with self.places:
            if self.delay:
                _sleep_until(self.ended + self.delay)
            try:
                return fetcher()
            finally:
                self.ended = time.time()


@dataclass
class Plan:
    """A batch's steps: those fetched now (by their slot's time), those robots.txt of an
    external link's host refuses, those put off, and a gate for each host fetched."""

    planned: list[Planned]
    blocked: list[tuple[str, dict[str, Any]]]
    later: list[Later]
    gates: dict[str, Gate]


def host_of(url: str) -> str:
    """The host a URL's fetch is paced by: its `host[:port]` as the fetcher requests it
    (both schemes of one host share the slot); the URL's own text when the fetcher
    refuses it (it is not requested then, and its step is soon done)."""
    try:
        return fetch.target_of(url).authority
    except fetch.FetchError:
        return url


def plan(
    steps: list[tuple[str, dict[str, Any]]], states: dict[str, dict[str, Any] | None], now: float
) -> Plan:
    """Book the slots of a batch's fetch steps, host by host, as far as `HORIZON` ahead."""
    externals.read([step["url"] for _, step in steps if step.get("external")])
    found = Plan([], [], [], {})
    by_host: dict[str, list[tuple[str, dict[str, Any], float, float]]] = {}
    for message_id, step in steps:
        state = states.get(step["crawl"]) or {}
        if step.get("external"):
            known = externals.host(step["url"])
            if not known.allows(step["url"]):
                found.blocked.append((message_id, step))
                continue
            delay = known.delay
        else:
            delay = float(state.get("crawl_delay") or 0.0)
        delay = min(delay, MAX_CRAWL_DELAY)
        spacing = max(1.0 / settings().audit_rate, delay)
        max_rate = float(state.get("max_rate") or 0)
        if max_rate > 0:
            spacing = max(spacing, 1.0 / max_rate)
        by_host.setdefault(host_of(step["url"]), []).append((message_id, step, spacing, delay))
    for host, entries in by_host.items():
        ahead = max(now, time.time()) + LEAD
        booked = slots.reserve_host(host, ahead, [spacing for _, _, spacing, _ in entries], HORIZON)
        for (message_id, step, _, _), at in zip(entries, booked.times, strict=False):
            found.planned.append(Planned(message_id, step, host, at))
        start = booked.after
        for message_id, step, spacing, _ in entries[len(booked.times) :]:
            found.later.append(Later(message_id, step, start - now, "host_slot"))
            start += spacing
        delay = max(delay for _, _, _, delay in entries)
        found.gates[host] = Gate(settings().audit_host_concurrency, delay)
    found.planned.sort(key=lambda planned: planned.at)
    return found


def put_off(later: list[Later]) -> list[tuple[str, Exception]]:
    """Send the steps put off again, delayed; the message ids of those that could not be,
    with why (they fail, and come back after the queue's visibility timeout)."""
    failed = []
    for step in later:
        try:
            slots.send_later(step.step, step.delay)
            metrics.count("AuditStepsPutOff", reason=step.reason)
        except Exception as err:
            logger.exception("audit step not put off", extra={"crawl": step.step.get("crawl")})
            failed.append((step.message_id, err))
    return failed


def _sleep_until(moment: float) -> None:
    wait = moment - time.time()
    if wait > 0:
        time.sleep(wait)
