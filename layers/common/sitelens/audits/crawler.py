"""The crawl's steps, one SQS message each, run by any number of workers (AuditFunction).

- `start`: read robots.txt once (kept in the run's state for every worker), seed the
  frontier with the start URL and the sitemaps' URLs, queue a `fetch` for each;
- `fetch`: one URL: robots.txt's verdict, a politeness slot, the fetch through the report
  fetcher (its SSRF guard at every hop), the page's facts and per-page checks stored, its
  new in-scope links claimed (conditional puts: each URL once) and queued;
- `analyse`: when the last outstanding step is done (the run's `pending` counter reaches
  0, counted atomically), the cross-page checks run over the stored facts.

No worker holds the crawl: each step a message, each URL's state an item. A redelivered
step is harmless: claims are conditional, a `fetch`'s page is stored with its step's count
in one transaction only while not `fetched` (`data.frontier.finish_pages`), so `pending`
falls once per claim; a `start` stopped after `crawling` seeds again, its claims queued
again, and a page counts once whichever step saves it.

Every source of URLs (links, canonicals, hreflang, `rel=next`/`prev`, sitemaps,
redirects) obeys the run's scope (`urls.Scope.crawls`) and `max_depth`. Crawl settings
come from the run's state, each with a default so an older state crawls as before
(`user_agent`, `crawl_secret`, `list_urls`, `max_rate`; `render`: "js" reads each HTML
page after its scripts ran, `rendering`). A run that cannot be audited ends `failed`,
never analysed, with a `failure` the user can act on (`failures`).
"""

from __future__ import annotations

import functools
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from sitelens.audits import (
    assets,
    claims,
    externals,
    facts,
    failures,
    fairshare,
    fetching,
    politeness,
    rendering,
    sitemaps,
    visiting,
)
from sitelens.audits.fetching import AGENT, Fetched, Identity, Politeness
from sitelens.audits.urls import Scope
from sitelens.core import clock, scopes
from sitelens.core.log import logger
from sitelens.data import audits as stored
from sitelens.data import frontier
from sitelens.seo import fetch

ACTIVE = ("queued", "crawling")
_HTML_TYPES = ("text/html", "application/xhtml+xml", "")


def handle(records: list[dict[str, Any]]) -> list[str]:
    """One batch of crawl steps (SQS records); the message ids of those that failed. A
    step that failed its last delivery fails its run, saying why."""
    failed: list[str] = []
    errors: dict[str, str] = {}  # what a failed step raised, by message id
    fetches: list[tuple[str, dict[str, Any]]] = []
    for record in records:
        try:
            step = json.loads(record["body"])
            if step["kind"] == "fetch":
                if failures.deliveries(record) > 1:
                    step["again"] = True  # an earlier delivery may have claimed its links
                fetches.append((record["messageId"], step))
            elif step["kind"] == "start":
                start(step["crawl"])
            elif step["kind"] == "analyse":
                from sitelens.audits import analysis as audit_analysis

                audit_analysis.analyse(step["crawl"])
        except Exception as err:
            logger.exception("audit step failed", extra={"message_id": record.get("messageId")})
            failed.append(record["messageId"])
            errors[record["messageId"]] = failures.error_name(err)
    if fetches:
        failed += fetch_all(fetches, errors)
    failures.fail_exhausted(records, failed, errors)
    return failed


def _scope(state: dict[str, Any]) -> Scope:
    return Scope(state["url"], state.get("include", ""), state.get("exclude", ""))


def _start_name(state: dict[str, Any]) -> str:
    """The run's start URL as the frontier names it (the target, once the run moved)."""
    return _scope(state).name(state["url"]) or state["url"]


def _is_start(state: dict[str, Any], step: dict[str, Any]) -> bool:
    return step.get("depth") == 0 and not step.get("external") and step["url"] == _start_name(state)


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
    try:
        identity = visiting.identity(state)
    except fetching.BadCredentials as err:
        failures.fail(crawl, f"The audit's crawl credentials cannot be sent: {err} Set them again.")
        return
    kept, delay, declared, unreachable = visiting.read_robots(start_url, identity)
    listed = scope.listed(state.get("list_urls") or "")
    failure = failures.unstartable({**state, "robots": kept}, start_url, unreachable, listed)
    if failure is not None:
        failures.fail(crawl, failure)
        return
    if not again:
        crawling: dict[str, Any] = {"status": "crawling", "robots": kept, "crawl_delay": delay}
        crawling |= assets.of_host(start_url, identity, delay)  # once a run, as robots.txt
        if not stored.set_state(crawl, ("queued",), seeding=1, **crawling):
            return
        state.update(crawling, seeding=1)
    claims.forget(crawl)
    queued: dict[str, dict[str, Any]] = {}
    if state.get("list_urls"):  # list mode: the list's URLs, no depth, nothing discovered
        for url in listed:
            if claims.to_fetch(state, _page(url, None), again):
                queued[url] = _fetch_step(state, url, None, again)
    else:
        if claims.to_fetch(state, _page(start_url, 0), again):
            queued[start_url] = _fetch_step(state, start_url, 0, again)
        queued |= _seed_sitemaps(state, scope, start_url, declared, identity, again)
    stored.send(list(queued.values()))
    _analyse_if_done(crawl, stored.count(crawl, ending="seeding", pending=-1))


def _seed_sitemaps(
    state: dict[str, Any],
    scope: Scope,
    start_url: str,
    declared: list[str],
    identity: Identity,
    again: bool = False,
) -> dict[str, dict[str, Any]]:
    """Claim the in-scope URLs of the declared sitemaps and the origin's /sitemap.xml;
    their fetch steps by URL (the run's state counts them as `sitemap_urls`), `again` with
    those claimed before. A URL out of scope is neither claimed nor counted."""
    queued: dict[str, dict[str, Any]] = {}
    roots = [*declared, "/".join(start_url.split("/", 3)[:3]) + "/sitemap.xml"]
    in_sitemaps = 0
    body = functools.partial(visiting.sitemap_body, identity=identity)
    for found in sitemaps.urls(roots, body, state["max_pages"]):
        url = scope.name(found)
        if url is None or not (scope.crawls(url) or url == start_url):
            continue
        in_sitemaps += 1
        page = {**_page(url, None), "in_sitemap": True}
        claimed = claims.claim(state, page, again=again)
        if claims.queues(claimed, again):
            queued.setdefault(url, _fetch_step(state, url, None, again))
        if claimed is not frontier.Claim.NEW and url == start_url:
            frontier.save_page(state["crawl"], url, {"in_sitemap": True})
    stored.set_state(state["crawl"], sitemap_urls=in_sitemaps)
    return queued


def _move(state: dict[str, Any], target: str, again: bool = False) -> list[dict[str, Any]]:
    """The start URL redirects to another host (a site moved to `www.`, say): that host
    becomes the run's scope, once: its robots.txt is read, the target claimed at depth 0
    and its sitemaps seeded. The steps to queue (none when the run moved already, unless
    this is the step that moved it, come `again`)."""
    crawl = state["crawl"]
    identity = visiting.identity(state)
    kept, delay, declared, _ = visiting.read_robots(target, identity)
    if again and "moved_from" in state and state["url"] == target:
        moved = state  # moved by this step's earlier delivery, which may not have queued
    else:
        fields = {"url": target, "moved_from": state["url"], "robots": kept, "crawl_delay": delay}
        fields |= assets.of_host(target, identity, delay)
        if not stored.set_state(crawl, ACTIVE, only_once="moved_from", **fields):
            return []
        moved = {**state, **fields}
    queued = {}
    if claims.to_fetch(moved, _page(target, 0), again):
        queued[target] = _fetch_step(moved, target, 0, again)
    seeds = _seed_sitemaps(moved, _scope(moved), target, declared, identity, again)
    return list((queued | seeds).values())


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


def fetch_all(
    steps: list[tuple[str, dict[str, Any]]], errors: dict[str, str] | None = None
) -> list[str]:
    """Fetch a batch's URLs within their accounts' shares (`fairshare`), each in its
    host's politeness slot (`politeness`: booked once a batch a host, across every crawl),
    and claim their links; then, once a crawl, queue the links and store the pages with
    their steps' count in one transaction. A step past its account's share or its host's
    horizon is put off (sent again, delayed), not failed. A failure before that
    transaction fails the crawl's steps, which come again (`again`). The message ids of
    the steps that failed (what each raised in `errors`)."""
    errors = {} if errors is None else errors
    states: dict[str, dict[str, Any] | None] = {}
    identities: dict[str, Identity] = {}
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
            if crawl not in identities:
                identities[crawl] = visiting.identity(state)
            tally = tallies.setdefault(crawl, _Tally())
            tally.messages.append(message_id)
            if step.get("again") and frontier.is_fetched(crawl, step["url"]):
                continue  # done by an earlier delivery, or by another copy
            rules = None if step.get("external") else visiting.robots(state)  # else its own host's
            if rules is not None and not rules.can_fetch(step["url"], AGENT):
                if _is_start(state, step):  # the host a start URL moved to disallows it
                    failures.fail(crawl, failures.ROBOTS_FAILURE)
                tally.add(step["url"], {"state": "fetched", "blocked": True}, 1, [])
                continue
            wanted.setdefault(crawl, []).append((message_id, step))
        except Exception as err:
            logger.exception("audit fetch failed", extra={"crawl": crawl})
            failed.append(message_id)
            errors[message_id] = failures.error_name(err)
    polite: dict[str, Politeness] = {}
    for crawl in wanted:
        delay = float((states[crawl] or {}).get("crawl_delay") or 0.0)
        polite[crawl] = Politeness(delay, identities[crawl])
    now = time.time()
    admitted, later = fairshare.admit([s for batch in wanted.values() for s in batch], states, now)
    plan = politeness.plan(admitted, states, now)
    for _, step in plan.blocked:  # by the link's host's robots.txt
        blocked = Fetched(step["url"], None, externals.BLOCKED)
        _found(states[step["crawl"]] or {}, step, blocked, tallies[step["crawl"]])
    for put in [*later, *plan.later]:
        tallies[put.step["crawl"]].messages.remove(put.message_id)  # done with, as sent again
    broken: dict[str, str] = {}  # crawls a step of which could not be finished: its error

    def crawl_one(planned: politeness.Planned) -> None:
        step = planned.step
        fetcher = (
            functools.partial(externals.check, step["url"])
            if step.get("external")
            else functools.partial(polite[step["crawl"]].fetch, step["url"], planned.at)
        )
        gate = plan.gates[planned.host]
        result = gate.run(fetcher, planned.at)
        try:
            _found(states[step["crawl"]] or {}, step, result, tallies[step["crawl"]], gate)
        except Exception as err:
            logger.exception("audit page could not be read", extra={"crawl": step["crawl"]})
            broken[step["crawl"]] = failures.error_name(err)

    if plan.planned:
        # Each page is fetched, analysed and its links claimed in a thread of its own (a
        # batch holds at most 10), waiting for its host's slot and place (`politeness.Gate`):
        # the claims' round trips overlap as the fetches' do (boto3's clients are
        # thread-safe; each tally adds under its lock).
        with scopes.ThreadPool(max_workers=len(plan.planned)) as pool:
            list(pool.map(crawl_one, plan.planned))
    for message_id, refused in politeness.put_off([*later, *plan.later]):  # after the fetches:
        failed.append(message_id)  # their slots were booked from now
        errors[message_id] = failures.error_name(refused)
    for crawl, tally in tallies.items():
        try:
            if crawl in broken:
                raise RuntimeError("a step of the crawl failed")
            stored.send(tally.queued)  # before the steps count as done: their links are pending
            frontier.finish_pages(crawl, tally.found)
            _analyse_if_done(crawl, stored.state(crawl))  # also after an earlier delivery's
        except Exception as err:
            logger.exception("audit steps could not be finished", extra={"crawl": crawl})
            failed += tally.messages
            errors.update(
                dict.fromkeys(tally.messages, broken.get(crawl) or failures.error_name(err))
            )
    return list(dict.fromkeys(failed))  # each once: a step may fail alone, then with its crawl


def _found(
    state: dict[str, Any],
    step: dict[str, Any],
    result: Fetched,
    tally: _Tally,
    gate: politeness.Gate | None = None,
) -> None:
    """One fetched URL's facts, and its links claimed (with `again`, also those claimed
    before, which an earlier delivery may have claimed and not queued); a page's images
    fetched in its host's `gate` (none without one)."""
    url, again = step["url"], bool(step.get("again"))
    depth = step.get("depth")
    scope = _scope(state)
    discovers = not state.get("list_urls")  # list mode: what a page leads to is not crawled
    found: dict[str, Any] = {"state": "fetched", "fetched_at": clock.now_iso()}
    if step.get("external"):
        if result.error == externals.BLOCKED:  # never requested: not a broken link
            found["blocked"] = True
        else:
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
        if result.elapsed_ms is not None:
            found["response_time_ms"] = result.elapsed_ms
        location = response.headers.get("location", "").strip()
        target = scope.name(location, url) if 300 <= response.status < 400 and location else None
        if target is not None:
            found.update(redirect_to=target, redirects=1)
            moving = not scope.internal(target) and "moved_from" not in state
            if discovers and depth == 0 and (moving or (again and state["url"] == target)):
                queued += _move(state, target, again)  # the site lives on another host
            followed = discovers and scope.crawls(target)
            if followed and claims.to_fetch(state, _page(target, depth), again):
                queued.append(_fetch_step(state, target, depth, again))
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if response.status == 200 and media in _HTML_TYPES:
            parsed, report = rendering.read(state, url, response, scope)  # raw, or rendered
            found.update(parsed.facts, **assets.of_page(state, parsed, report, gate))
            queued += _claim_links(state, scope, parsed, depth, again)
    if _is_start(state, step) and (failure := failures.start_failure(result)) is not None:
        failures.fail(state["crawl"], failure)
    tally.add(url, found, 1, queued)


def _claim_links(
    state: dict[str, Any], scope: Scope, parsed: facts.Parsed, depth: int | None, again: bool
) -> list[dict[str, Any]]:
    """Claim what the page leads to: every internal URL in scope and depth (its links, and
    its canonical, alternates, next and prev, a hop each as a link is), to crawl, but in
    list mode; its external links (at most `max_pages` a run), to check their status. With
    `again`, the steps of those claimed before too."""
    queued = []
    child = None if depth is None else depth + 1
    if not state.get("list_urls") and (child is None or child <= state["max_depth"]):
        links = [link for link in parsed.targets if scope.crawls(link)]
        claimed_links = claims.claim_all(state, [_page(link, child) for link in links], again)
        for link, claimed in zip(links, claimed_links, strict=True):
            if claims.queues(claimed, again):
                queued.append(_fetch_step(state, link, child, again))
    for link in parsed.facts["external_links"]:
        external = {**_page(link, None), "external": True}
        if claims.to_fetch(state, external, again, counter="externals"):
            queued.append({**_fetch_step(state, link, None, again), "external": True})
    return queued
