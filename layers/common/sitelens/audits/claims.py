"""A run's URLs claimed in the frontier (`data.frontier.claim_page`: a conditional put,
so each URL once a run), and what this container remembers of them, so that a link seen
again costs no write."""

from __future__ import annotations

from typing import Any

from sitelens.core import scopes
from sitelens.data import frontier

# URLs this container has claimed or found claimed, by crawl: a link seen again is not
# claimed again (most links of a site are to pages already known). Bounded: forgotten
# all at once past MAX_KNOWN, after which the frontier's conditional put still dedupes.
MAX_KNOWN = 200_000
_known: dict[str, set[str]] = {}
# (crawl, counter) of the runs this container found full: a full run never has room again,
# so a page's other links cost no write (links are all claimed, however many a page has).
_full: set[tuple[str, str]] = set()
# A page's claims at once: two writes each, about 5 ms apart deployed, so a page of 20,000
# new links (past that, the run's `max_pages` or this container's memory of claimed URLs
# answers with no write) is claimed in about 25 s of a step's 300.
CLAIMERS = 8


def claim(
    state: dict[str, Any], page: dict[str, Any], counter: str = "discovered", again: bool = False
) -> frontier.Claim:
    """Claim a URL for the run once (see `data.frontier.claim_page`), skipping URLs this
    container knows are claimed already (KNOWN) and, once it found the run full, those it
    does not know (FULL), unless the step came `again`: an earlier delivery, in another
    container, may have claimed them, and they must be queued."""
    crawl = state["crawl"]
    known = _known.setdefault(crawl, set())
    if page["url"] in known:
        return frontier.Claim.KNOWN
    if (crawl, counter) in _full and not again:
        return frontier.Claim.FULL
    if sum(map(len, list(_known.values()))) >= MAX_KNOWN:  # a copy: other threads add
        _known.clear()
        _full.clear()
        known = _known.setdefault(crawl, set())
    claimed = frontier.claim_page(crawl, page, state["max_pages"], state["expires_at"], counter)
    if claimed is frontier.Claim.FULL:
        _full.add((crawl, counter))
    else:
        known.add(page["url"])
    return claimed


def claim_all(
    state: dict[str, Any], pages: list[dict[str, Any]], again: bool
) -> list[frontier.Claim]:
    """Claim a page's URLs (`claim`), `CLAIMERS` at a time once there are more: their
    round trips overlap, so a page of many new links is claimed within a step's time."""
    if len(pages) <= CLAIMERS:
        return [claim(state, page, again=again) for page in pages]
    with scopes.ThreadPool(max_workers=CLAIMERS) as pool:
        return list(pool.map(lambda page: claim(state, page, again=again), pages))


def queues(claimed: frontier.Claim, again: bool) -> bool:
    """Whether a claimed URL's fetch is queued: it is new, or its step came `again` and it
    was claimed before (perhaps by the delivery that failed, without queueing it)."""
    return claimed is frontier.Claim.NEW or (again and claimed is frontier.Claim.KNOWN)


def to_fetch(
    state: dict[str, Any], page: dict[str, Any], again: bool, counter: str = "discovered"
) -> bool:
    """Claim a URL (`claim`) and say whether its fetch is to be queued (`queues`)."""
    return queues(claim(state, page, counter, again), again)


def forget(crawl: str) -> None:
    """Forget what this container knows of a run's claims (a run's name is new; a test's
    may not be)."""
    _known.pop(crawl, None)
    _full.difference_update({(crawl, "discovered"), (crawl, "externals")})
