"""The crawl's steps, one SQS message each, run by any number of workers (AuditFunction).

- `start`: read robots.txt once (kept in the run's state for every worker), seed the
  frontier with the start URL and the sitemaps' URLs, queue a `fetch` for each;
- `fetch`: one URL: robots.txt's verdict, a politeness slot, the fetch through the report
  fetcher (its SSRF guard at every hop), the page's facts and per-page checks stored, its
  new in-scope links claimed (conditional puts: each URL once) and queued;
- `analyse`: when the last outstanding step is done (the run's `pending` counter reaches
  0, counted atomically), the cross-page checks run over the stored facts.

No worker holds the crawl: each step is a message, each URL's state an item, so a crawl of
100,000 pages is 100,000 short invocations, and a worker's memory is one batch's pages.
A redelivered message does its step again harmlessly: claims are conditional, and a
`fetch`'s page is stored with its step's count in one transaction, only while the page
is not `fetched` (`data.frontier.finish_pages`), so `pending` goes down once per claim; a
`fetch` delivered again queues its links even if claimed before. A `start` that stopped
after moving its run to `crawling` (the state still says `seeding`) seeds again when it
comes back, queueing the URLs it had claimed as well: a page counts once, whichever of
its steps saves it, and the start's own step is counted as `seeding` is removed, once.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from protego import Protego

from sitelens.audits import facts, sitemaps
from sitelens.audits.fetching import AGENT, Fetched, Politeness, get
from sitelens.audits.urls import Scope
from sitelens.core import clock
from sitelens.core.config import settings
from sitelens.core.log import logger
from sitelens.data import audits as stored
from sitelens.data import frontier
from sitelens.seo import analysis, fetch, robots
from sitelens.seo.page import Site

MAX_CRAWL_DELAY = 20.0  # seconds; a longer crawl-delay is honoured as 20 s
MAX_ROBOTS_KEPT = 100 * 1024  # bytes of robots.txt kept in the run's state (a 400 KB item)
ACTIVE = ("queued", "crawling")
_HTML_TYPES = ("text/html", "application/xhtml+xml", "")


def handle(records: list[dict[str, Any]]) -> list[str]:
    """One batch of crawl steps (SQS records); the message ids of those that failed."""
    failed: list[str] = []
    fetches: list[tuple[str, dict[str, Any]]] = []
    for record in records:
        try:
            step = json.loads(record["body"])
            if step["kind"] == "fetch":
                if int(record.get("attributes", {}).get("ApproximateReceiveCount", 1)) > 1:
                    step["again"] = True  # an earlier delivery may have claimed its links
                fetches.append((record["messageId"], step))
            elif step["kind"] == "start":
                start(step["crawl"])
            elif step["kind"] == "analyse":
                from sitelens.audits import analysis as audit_analysis

                audit_analysis.analyse(step["crawl"])
        except Exception:
            logger.exception("audit step failed", extra={"message_id": record.get("messageId")})
            failed.append(record["messageId"])
    if fetches:
        failed += fetch_all(fetches)
    return failed


def _scope(state: dict[str, Any]) -> Scope:
    return Scope(state["url"], state.get("include", ""), state.get("exclude", ""))


def _robots(state: dict[str, Any]) -> Protego | None:
    text = state.get("robots")
    return Protego.parse(text) if text and state.get("respect_robots", 1) else None


def start(crawl: str) -> None:
    """Read robots.txt, seed the frontier and queue its fetches; or, for a start that
    stopped half way (its run `crawling` and still `seeding`), do it again."""
    state = stored.state(crawl)
    if state is None:
        return
    again = state["status"] == "crawling" and "seeding" in state
    if state["status"] != "queued" and not again:
        _analyse_if_done(crawl, state)  # in case it was the last step and stopped after it
        return  # a redelivered start, or a cancelled audit
    scope = _scope(state)
    start_url = scope.name(state["url"]) or state["url"]
    kept, delay, declared = _read_robots(start_url)
    if not again:
        crawling: dict[str, Any] = {"status": "crawling", "robots": kept, "crawl_delay": delay}
        if not stored.set_state(crawl, ("queued",), seeding=1, **crawling):
            return
        state.update(crawling, seeding=1)
    _known.pop(crawl, None)  # a run's name is new; a test's may not be
    queued: dict[str, dict[str, Any]] = {}
    if _claim(state, _page(start_url, 0)) or again:
        queued[start_url] = _fetch_step(state, start_url, 0, again)
    queued |= _seed_sitemaps(state, scope, start_url, declared, again)
    stored.send(list(queued.values()))
    _analyse_if_done(crawl, stored.count(crawl, ending="seeding", pending=-1))


def _read_robots(url: str) -> tuple[str, float, list[str]]:
    """The robots.txt of the URL's origin as the run keeps it (bounded), its crawl-delay
    for the crawler's agent (bounded) and the sitemaps it declares; none without one."""
    robots_url = "/".join(url.split("/", 3)[:3]) + "/robots.txt"
    robots_text, delay, declared = "", 0.0, []
    try:
        response = get(robots_url, cap=robots.MAX_ROBOTS_BYTES)
        if 200 <= response.status < 300:
            robots_text = robots.text(response)
            rules = Protego.parse(robots_text)
            delay = min(float(rules.crawl_delay(AGENT) or 0.0), MAX_CRAWL_DELAY)
            declared = list(rules.sitemaps)
    except fetch.FetchError:
        pass  # no robots.txt to obey: the pages say the rest
    return robots_text.encode()[:MAX_ROBOTS_KEPT].decode("utf-8", "ignore"), delay, declared


def _seed_sitemaps(
    state: dict[str, Any], scope: Scope, start_url: str, declared: list[str], again: bool = False
) -> dict[str, dict[str, Any]]:
    """Claim the in-scope URLs of the declared sitemaps and the origin's /sitemap.xml;
    their fetch steps by URL (the run's state counts them as `sitemap_urls`), `again` with
    those claimed before."""
    queued: dict[str, dict[str, Any]] = {}
    roots = [*declared, "/".join(start_url.split("/", 3)[:3]) + "/sitemap.xml"]
    in_sitemaps = 0
    for found in sitemaps.urls(roots, _sitemap_body, state["max_pages"]):
        url = scope.name(found)
        if url is None or not scope.internal(url):
            continue
        in_sitemaps += 1
        page = {**_page(url, None), "in_sitemap": True}
        claimed = _claim(state, page)
        if claimed or again:
            queued.setdefault(url, _fetch_step(state, url, None, again))
        if not claimed and url == start_url:
            frontier.save_page(state["crawl"], url, {"in_sitemap": True})
    stored.set_state(state["crawl"], sitemap_urls=in_sitemaps)
    return queued


def _move(state: dict[str, Any], target: str, again: bool = False) -> list[dict[str, Any]]:
    """The start URL redirects to another host (a site moved to `www.`, say): that host
    becomes the run's scope, once: its robots.txt is read, the target claimed at depth 0
    and its sitemaps seeded. The steps to queue (none when the run moved already, unless
    this is the step that moved it, come `again`)."""
    crawl = state["crawl"]
    kept, delay, declared = _read_robots(target)
    if again and "moved_from" in state and state["url"] == target:
        moved = state  # moved by this step's earlier delivery, which may not have queued
    else:
        fields = {"url": target, "moved_from": state["url"], "robots": kept, "crawl_delay": delay}
        if not stored.set_state(crawl, ACTIVE, only_once="moved_from", **fields):
            return []
        moved = {**state, **fields}
    queued = {}
    if _claim(moved, _page(target, 0)) or again:
        queued[target] = _fetch_step(moved, target, 0, again)
    seeds = _seed_sitemaps(moved, _scope(moved), target, declared, again)
    return list((queued | seeds).values())


def _sitemap_body(url: str) -> bytes | None:
    try:
        response = get(url)
    except fetch.FetchError:
        return None
    return response.body if response.status == 200 else None


def _page(url: str, depth: int | None) -> dict[str, Any]:
    return {"url": url, "state": "queued", **({"found_depth": depth} if depth is not None else {})}


def _fetch_step(
    state: dict[str, Any], url: str, depth: int | None, again: bool = False
) -> dict[str, Any]:
    """A fetch of `url`; `again` when it may have been queued before (checked first)."""
    step = {"kind": "fetch", "crawl": state["crawl"], "url": url, "depth": depth}
    return {**step, "again": True} if again else step


def _analyse_if_done(crawl: str, counters: dict[str, Any] | None) -> None:
    """Queue the analysis when a step's count left no step pending (None: not counted)."""
    if counters is not None and counters["pending"] <= 0 and counters["status"] == "crawling":
        stored.send([{"kind": "analyse", "crawl": crawl}])


# URLs this container has claimed or found claimed, by crawl: a link seen again is not
# claimed again (most links of a site are to pages already known). Bounded: forgotten
# all at once past MAX_KNOWN, after which the frontier's conditional put still dedupes.
MAX_KNOWN = 200_000
_known: dict[str, set[str]] = {}


def _claim(state: dict[str, Any], page: dict[str, Any], counter: str = "discovered") -> bool:
    """Claim a URL for the run once (see `data.frontier.claim_page`), skipping URLs this
    container knows are claimed already."""
    known = _known.setdefault(state["crawl"], set())
    if page["url"] in known:
        return False
    if sum(len(urls) for urls in _known.values()) >= MAX_KNOWN:
        _known.clear()
        known = _known.setdefault(state["crawl"], set())
    claimed = frontier.claim_page(
        state["crawl"], page, state["max_pages"], state["expires_at"], counter
    )
    known.add(page["url"])
    return claimed


@dataclass
class _Tally:
    """One crawl's share of a batch: its steps' message ids, what they found (url, facts,
    pages fetched) and the steps to queue."""

    messages: list[str] = field(default_factory=list)
    found: list[tuple[str, dict[str, Any], int]] = field(default_factory=list)
    queued: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, url: str, facts: dict[str, Any], fetched: int, queued: list[Any]) -> None:
        """One step's findings (from any of the batch's threads)."""
        with self.lock:
            self.found.append((url, facts, fetched))
            self.queued += queued


def fetch_all(steps: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Fetch a batch's URLs, at most the host concurrency at once, each in its run's
    politeness slots (reserved once a batch), and claim their links; then, once a crawl,
    queue the links and store the pages with their steps' count in one transaction. A
    failure before that transaction fails the crawl's steps, which come again (`again`).
    The message ids of the steps that failed."""
    states: dict[str, dict[str, Any] | None] = {}
    tallies: dict[str, _Tally] = {}
    wanted: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    failed: list[str] = []
    for message_id, step in steps:
        crawl = step["crawl"]
        try:
            if crawl not in states:
                states[crawl] = stored.state(crawl)
            state = states[crawl]
            if state is None or state["status"] not in ACTIVE:
                continue  # cancelled or over: the step is dropped
            tally = tallies.setdefault(crawl, _Tally())
            tally.messages.append(message_id)
            if step.get("again") and frontier.is_fetched(crawl, step["url"]):
                continue  # done by an earlier delivery, or by another copy
            rules = _robots(state)
            if rules is not None and not rules.can_fetch(step["url"], AGENT):
                tally.add(step["url"], {"state": "fetched", "blocked": True}, 1, [])
                continue
            wanted.setdefault(crawl, []).append((message_id, step))
        except Exception:
            logger.exception("audit fetch failed", extra={"crawl": crawl})
            failed.append(message_id)
    planned: list[tuple[str, dict[str, Any], float]] = []
    polite: dict[str, Politeness] = {}
    now = time.time()
    for crawl, batch in wanted.items():
        state = states[crawl] or {}
        delay = float(state.get("crawl_delay") or 0.0)
        polite[crawl] = Politeness(delay)
        interval = max(1.0 / settings().audit_rate, delay)
        first = stored.reserve_slots(crawl, now, interval, len(batch))
        planned += [(m, step, first + n * interval) for n, (m, step) in enumerate(batch)]
    broken: set[str] = set()  # crawls a step of which could not be finished

    def crawl_one(message_id: str, step: dict[str, Any], not_before: float) -> None:
        result = polite[step["crawl"]].fetch(step["url"], not_before)
        try:
            _found(states[step["crawl"]] or {}, step, result, tallies[step["crawl"]])
        except Exception:
            logger.exception("audit page could not be read", extra={"crawl": step["crawl"]})
            broken.add(step["crawl"])

    if planned:
        # Each page is fetched, analysed and its links claimed in a thread of its own: the
        # claims' round trips overlap as the fetches' do (boto3's clients are thread-safe;
        # each tally adds under its lock).
        with ThreadPoolExecutor(max_workers=settings().audit_host_concurrency) as pool:
            list(pool.map(lambda p: crawl_one(*p), planned))
    for crawl, tally in tallies.items():
        try:
            if crawl in broken:
                raise RuntimeError("a step of the crawl failed")
            stored.send(tally.queued)  # before the steps count as done: their links are pending
            frontier.finish_pages(crawl, tally.found)
            _analyse_if_done(crawl, stored.state(crawl))  # also after an earlier delivery's
        except Exception:
            logger.exception("audit steps could not be finished", extra={"crawl": crawl})
            failed += tally.messages
    return list(dict.fromkeys(failed))  # each once: a step may fail alone, then with its crawl


def _found(state: dict[str, Any], step: dict[str, Any], result: Fetched, tally: _Tally) -> None:
    """One fetched URL's facts, and its links claimed (with `again`, also those claimed
    before, which an earlier delivery may have claimed and not queued)."""
    url, again = step["url"], bool(step.get("again"))
    depth = step.get("depth")
    scope = _scope(state)
    found: dict[str, Any] = {"state": "fetched", "fetched_at": clock.now_iso()}
    if step.get("external"):
        found["status_code"] = result.response.status if result.response else 0
        found["error"] = result.error
        tally.add(url, found, 0, [])
        return
    queued: list[dict[str, Any]] = []
    response = result.response
    if response is None:
        found.update(status_code=0, error=result.error)
        found["loop"] = result.error == fetch.TOO_MANY_REDIRECTS
    else:
        found["status_code"] = response.status
        location = response.headers.get("location", "").strip()
        target = scope.name(location, url) if 300 <= response.status < 400 and location else None
        if target is not None:
            found.update(redirect_to=target, redirects=1)
            moving = not scope.internal(target) and "moved_from" not in state
            if depth == 0 and (moving or (again and state["url"] == target)):
                queued += _move(state, target, again)  # the site lives on another host
            crawled = scope.internal(target) and scope.follows(target)
            if crawled and (_claim(state, _page(target, depth)) or again):
                queued.append(_fetch_step(state, target, depth, again))
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if response.status == 200 and media in _HTML_TYPES:
            page = facts.of_page(url, response.body, response.headers, scope)
            report = analysis.analyse(Site(page=response))
            page["score"] = report.score
            page["failed_checks"] = sorted(k for k, r in report.results.items() if not r["passed"])
            found.update(page)
            queued += _claim_links(state, scope, page, depth, again)
    tally.add(url, found, 1, queued)


def _claim_links(
    state: dict[str, Any], scope: Scope, page: dict[str, Any], depth: int | None, again: bool
) -> list[dict[str, Any]]:
    """Claim the page's new links: internal ones in scope and depth, to crawl; external
    ones (at most `max_pages` a run), to check their status. With `again`, the steps of
    those claimed before too."""
    queued = []
    child = None if depth is None else depth + 1
    if child is None or child <= state["max_depth"]:
        for link in page["links"]:
            if scope.follows(link) and (_claim(state, _page(link, child)) or again):
                queued.append(_fetch_step(state, link, child, again))
    for link in page["external_links"]:
        if _claim(state, {**_page(link, None), "external": True}, counter="externals") or again:
            queued.append({**_fetch_step(state, link, None, again), "external": True})
    return queued
