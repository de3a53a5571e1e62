"""What a crawl step keeps beyond a page's HTML facts: its structured data's findings and
its images as their server answered (`of_page`), and, once a run, its host's llms.txt
(`of_host`). The checks over them are `content_checks`'."""

from __future__ import annotations

import json
import time
from typing import Any

from sitelens.audits import images, llms_txt, visiting
from sitelens.audits.facts import Parsed
from sitelens.audits.fetching import AGENT, Fetched, Identity
from sitelens.audits.politeness import Gate
from sitelens.seo.analysis import Report


def of_host(url: str, identity: Identity, delay: float) -> dict[str, Any]:
    """The run state's fields for the host of `url`: its llms.txt as `llms_txt` reads it."""
    return {"llms_txt": json.dumps(llms_txt.read(url, identity, delay))}


def of_page(
    state: dict[str, Any], parsed: Parsed, report: Report, gate: Gate | None
) -> dict[str, Any]:
    """A page's `rich_errors` and `rich_warnings` (its report's `rich_results`, when it has
    any) and its `images` fetched in the host's `gate` (none without one, nor when the run's
    pace forbids it: `images`); the image references (`image_refs`) are taken out of
    `parsed.facts`."""
    kept: dict[str, Any] = {}
    result = report.results.get("rich_results")
    rich = result["value"] if result is not None else None
    if isinstance(rich, dict):
        kept |= {f"rich_{kind}": rich[kind] for kind in ("errors", "warnings") if rich.get(kind)}
    shown = parsed.facts.pop("image_refs", [])
    rules = visiting.robots(state)
    shown = [image for image in shown if rules is None or rules.can_fetch(image["src"], AGENT)]
    paced = state.get("crawl_delay") or state.get("max_rate")
    if gate is not None and shown and not paced:

        def gated(fetcher: Any) -> Fetched:
            return gate.run(fetcher, time.time())

        kept["images"] = images.fetch(state["crawl"], shown, visiting.identity(state), gated)
    return kept
