"""Access logs pulled from the customer's own S3 prefix (docs/crawlers.md): a website's
source names the role they grant (assumed with the ExternalId `exports.external_id` gives
the account, as exports' deliveries are), the bucket, the prefix and the logs' format.
Hourly (`pull_all`), each source's objects after its checkpoint are read in key order and
stored as uploads are (`uploads.store`); the checkpoint moves to each object's key once it
is stored, so a run again, or a run after a crash, reads no object twice (and an object
read twice would count once anyway: its lines' ids are the same).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

from pydantic import Field

from sitelens.analytics.crawls import uploads
from sitelens.analytics.crawls.accesslogs import REALTIME_FIELDS
from sitelens.analytics.exports import BUCKET_PATTERN, ROLE_ARN_PATTERN, external_id
from sitelens.core import clock, errors, metrics
from sitelens.core.log import logger
from sitelens.data import checkpoints, crawl_sources, customer_buckets
from sitelens.data import websites as stored_websites
from sitelens.records.inputs import Input

MAX_OBJECTS: Final = 200  # a source's objects a run: CloudFront writes some a minute
# no source is started with less left of the function's 900 s: a 4 MB object takes ~15 s
RESERVE_SECONDS: Final = 120


class LogSource(Input):
    """The customer's role and where their logs are (docs/crawlers.md)."""

    role_arn: Annotated[str, Field(max_length=2048, pattern=ROLE_ARN_PATTERN)]
    bucket: Annotated[str, Field(pattern=BUCKET_PATTERN)]
    prefix: Annotated[str, Field(max_length=512, pattern=r"^[^\x00-\x1f]*$")] = ""
    format: Literal["auto", "combined", "common", "cloudfront", "cloudfront-realtime", "jsonl"] = (
        "auto"
    )
    fields: Annotated[str, Field(max_length=2000)] = ""


def job(website_id: int) -> str:
    """The checkpoint's name of a website's pull."""
    return f"crawl-pull#{int(website_id)}"


def connect(account: str, website_id: int, source: LogSource) -> dict[str, Any]:
    """Set the website's source; 404 for a website not the account's."""
    if stored_websites.get(account, website_id) is None:
        raise errors.NotFound()
    stored = {**source.model_dump(), "created_at": clock.now_iso()}
    crawl_sources.put(account, website_id, stored)
    return shown(account, website_id, stored)


def disconnect(account: str, website_id: int) -> None:
    """Stop pulling the website's logs; 404 when none are pulled."""
    if not crawl_sources.delete(account, website_id):
        raise errors.NotFound()


def shown(account: str, website_id: int, source: dict[str, Any]) -> dict[str, Any]:
    keys = ("role_arn", "bucket", "prefix", "format", "fields", "created_at")
    return {
        "website_id": website_id,
        **{k: source.get(k) for k in keys},
        "external_id": external_id(account),
        "last_key": checkpoints.last(job(website_id)),
    }


@dataclass
class Outcome:
    sources: int = 0
    objects: int = 0
    crawls: int = 0
    failed: int = 0


def pull_all(seconds_left: Any) -> Outcome:
    """One run over every source (the hourly schedule, system scope)."""
    outcome = Outcome()
    for source in crawl_sources.every():
        if seconds_left() < RESERVE_SECONDS:
            break
        outcome.sources += 1
        try:
            pull(source, outcome)
        except Exception as err:
            if not customer_buckets.delivery_failed(err):
                raise
            # their role or bucket refused us: theirs to fix; the next run tries again
            outcome.failed += 1
            metrics.count("CrawlPullsRefused", reason=type(err).__name__)
            logger.warning("log source refused", extra={"website_id": int(source["id"])})
    return outcome


def pull(source: dict[str, Any], outcome: Outcome) -> None:
    """Read and store one source's new objects, moving its checkpoint past each."""
    website_id, account = int(source["id"]), str(source["owner"])
    website = stored_websites.get(account, website_id)
    if website is None:
        return  # the website was deleted: its source goes with the next change
    fields = tuple(str(source.get("fields") or "").split(",")) if source.get("fields") else ()
    name = job(website_id)
    reader = customer_buckets.Reader(source["role_arn"], external_id(account), source["bucket"])
    found = reader.keys_after(source.get("prefix") or "", checkpoints.last(name) or "", MAX_OBJECTS)
    for item in found:
        if item.size > uploads.MAX_BODY_BYTES:
            metrics.count("CrawlLinesSkipped", reason="object_too_large")
        elif item.size:
            try:
                tally = uploads.store(
                    website_id,
                    str(website["domain"]),
                    reader.read(item.key),
                    str(source.get("format") or "auto"),
                    fields or REALTIME_FIELDS,
                )
                outcome.crawls += int(tally["crawls"])
            except (uploads.NotALog, errors.ApiError) as err:
                metrics.count("CrawlLinesSkipped", reason="object_not_a_log")
                logger.info("log object skipped", extra={"key": item.key, "why": str(err)})
        checkpoints.advance(name, item.key)
        outcome.objects += 1
