"""Ingestion: 10,000 hits with a realistic spread through the event handler (real API
Gateway events) and the aggregator at batch size 1,000: DynamoDB writes issued, and hits
per second of CPU in-process.

A first pass runs against DynamoDB Local (the template's tables) with SQS answered by a
stub that keeps the queued messages and the warehouse by a stub that counts its rows: it
checks that every hit was counted and counts the aggregator's write requests. A second
pass counts the same messages again, on fresh tables, in batches of the deployed size. The
timed passes repeat both stages with the stats writes answered by a stub, so that DynamoDB
Local's own cost is not counted as ours; website look-ups are cached in the warm container
either way. (moto copied every table on each transaction: 21.5 GB after 11 minutes.)
With BENCH_QUICK=1: 100 hits in batches of 25."""

from __future__ import annotations

import gc
import json
import random
import time
import uuid
from collections import Counter
from typing import Any
from urllib.parse import urlencode

import boto3
import pytest

from sitelens.analytics.counting import sum_counts
from sitelens.analytics.hit import STAT_NAMES, Hit
from sitelens.core import config
from sitelens.data import clients, queues, warehouse
from sitelens.data import stats as stored_stats
from sitelens.data import websites as stored_websites
from sitelens.local import gateway, resources, template
from tests.bench import report, timing

HITS = 100 if timing.QUICK else 10_000
BATCH = 25 if timing.QUICK else 1_000
# First receipts as Lambda's poller makes them: 500 messages a second.
FIRST_RECEIVED_MS = 1_795_000_000_000
RECEIPT_INTERVAL_MS = 2
ACCOUNT = "1"
DOMAIN = "acme-garden.example"
EVENT_APP = report.ROOT / "functions/analytics/event/app.py"
AGGREGATE_APP = report.ROOT / "functions/analytics/aggregate/app.py"

# Ten browsers' real user agents, weighted roughly like a European shop's traffic.
BROWSERS = [
    (
        30,
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/131.0.0.0 Safari/537.36",
    ),
    (
        18,
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
        "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    ),
    (
        14,
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/131.0.0.0 Mobile Safari/537.36",
    ),
    (
        9,
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like "
        "Gecko) Version/17.6 Safari/605.1.15",
    ),
    (
        8,
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
    ),
    (6, "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"),
    (
        5,
        "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S921B) AppleWebKit/537.36 (KHTML, like "
        "Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
    ),
    (
        4,
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like "
        "Gecko) Chrome/131.0.0.0 Safari/537.36",
    ),
    (3, "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"),
    (
        3,
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0",
    ),
]
# 30 referrers of new visits: direct (no referrer), search engines, social, links.
REFERRERS = [
    "",
    "https://www.google.com/",
    "https://www.bing.com/",
    "https://duckduckgo.com/",
    "https://www.ecosia.org/",
    "https://search.brave.com/",
    "https://news.ycombinator.com/item?id=42",
    "https://www.reddit.com/r/gardening/comments/abc/",
    "https://t.co/xyz",
    "https://www.facebook.com/",
    "https://l.instagram.com/",
    "https://www.linkedin.com/feed/",
    "https://www.pinterest.com/pin/123/",
    "https://www.youtube.com/watch?v=abc",
    "android-app://com.google.android.gm/",
    "https://mail.google.com/",
    "https://outlook.live.com/",
    "https://www.gardenersworld.example/best-shears",
    "https://blog.plantlover.example/2026/03/pruning",
    "https://forum.allotment.example/t/123",
    "https://www.rhs.example/advice",
    "https://en.wikipedia.org/wiki/Pruning_shears",
    "https://de.wikipedia.org/wiki/Gartenschere",
    "https://www.producthunt.com/posts/acme",
    "https://chatgpt.com/",
    "https://www.perplexity.ai/",
    "https://www.trustpilot.com/review/acme-garden.example",
    "https://partner-shop.example/tools",
    "https://newsletter.acme-garden-mail.example/march",
    "https://www.idealo.example/preisvergleich/shears",
]
LANGUAGES = ["de-DE,de;q=0.9", "en-US,en;q=0.9", "en-GB,en;q=0.8", "fr-FR,fr;q=0.9", "nl-NL"]
COUNTRIES = ["DE", "DE", "DE", "AT", "CH", "GB", "US", "FR", "NL", "PL", "IT", "ES"]
RESOLUTIONS = ["1920x1080", "1536x864", "1440x900", "390x844", "412x915", "2560x1440"]
_SECTIONS = (  # noqa: SIM905 - a word list reads better as words
    "guides products tools blog help shears rakes hoses gloves soil seeds pots lawn roses "
    "hedges trees fruit vegetables herbs compost"
).split()
PAGES = ["/"] + [f"/{_SECTIONS[n % 20]}/{_SECTIONS[(n * 7) % 20]}-{n}" for n in range(1, 200)]


def _zipf(count: int) -> list[float]:
    return [1 / rank for rank in range(1, count + 1)]


def hit_events(count: int, seed: int = 11) -> list[dict[str, Any]]:
    """Tracking requests as the script sends them and API Gateway delivers them: 200
    pages and 30 referrers with long tails, 10 browsers, 40% new visits, some events."""
    rng = random.Random(seed)
    page_weights, referrer_weights = _zipf(len(PAGES)), _zipf(len(REFERRERS))
    browser_weights = [weight for weight, _ in BROWSERS]
    events = []
    for _ in range(count):
        page = rng.choices(PAGES, page_weights)[0]
        url = f"https://www.{DOMAIN}{page}"
        if rng.random() < 0.4:  # a new visit: from elsewhere, sometimes a campaign
            referrer = rng.choices(REFERRERS, referrer_weights)[0]
            if rng.random() < 0.05:
                url += f"?utm_campaign=spring-{rng.randint(1, 3)}&utm_source=mail"
        else:  # a click within the site
            referrer = f"https://www.{DOMAIN}{rng.choices(PAGES, page_weights)[0]}"
        fields = {"page": url, "referrer": referrer, "screen_resolution": rng.choice(RESOLUTIONS)}
        if rng.random() < 0.03:
            fields.update({"event[name]": "signup", "event[value]": rng.choice(["pro", "free"])})
        ip = f"198.51.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
        headers = {
            "Accept": "*/*",
            "Accept-Language": rng.choice(LANGUAGES),
            "CloudFront-Viewer-Country": rng.choice(COUNTRIES),
            "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8",
            "Host": "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
            "Origin": f"https://www.{DOMAIN}",
            "User-Agent": rng.choices(BROWSERS, browser_weights)[0][1],
            "X-Forwarded-For": ip,
            "X-Forwarded-Proto": "https",
        }
        body = urlencode(fields).encode()
        events.append(
            gateway.proxy_event(
                "POST", "/api/event", "/api/event", headers=headers, body=body, source_ip=ip
            )
        )
    return events


class QueueStub:
    """SQS for the event function: keeps each sent message as ReceiveMessage returns it."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def send_message(self, **request: Any) -> dict[str, Any]:
        number = len(self.messages)
        self.messages.append(
            {
                "MessageId": f"hit-{number}",
                "ReceiptHandle": f"receipt-{number}",
                "Body": request["MessageBody"],
                "Attributes": {
                    "ApproximateReceiveCount": "1",
                    "ApproximateFirstReceiveTimestamp": str(
                        FIRST_RECEIVED_MS + number * RECEIPT_INTERVAL_MS
                    ),
                },
                "MessageAttributes": {
                    name: {"StringValue": value["StringValue"], "DataType": value["DataType"]}
                    for name, value in request.get("MessageAttributes", {}).items()
                },
            }
        )
        return {"MessageId": f"hit-{number}"}


WRITES = ("update_item", "put_item", "batch_write_item", "transact_write_items", "delete_item")


def _is_presence(request: dict[str, Any]) -> bool:
    series = (request.get("Key") or {}).get("series") or {}
    return str(series.get("S", "")).startswith("live#")


def counter_writes(counted: Counter[str]) -> int:
    """Write requests of the statistics (counters, delivery records, registries)."""
    return sum(n for kind, n in counted.items() if not kind.endswith(":presence"))


def presence_writes(counted: Counter[str]) -> int:
    return sum(n for kind, n in counted.items() if kind.endswith(":presence"))


class WriteCounter:
    """The DynamoDB client with write requests counted, and the items they write (a
    transaction's twice, as DynamoDB bills them); with `answer_writes` it answers writes
    itself (for timing), otherwise moto does."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.writes: Counter[str] = Counter()
        self.items: Counter[str] = Counter()
        self.answer_writes = False

    def __getattr__(self, name: str) -> Any:
        call = getattr(self.real, name)
        if name not in WRITES:
            return call

        def counted(**request: Any) -> Any:
            # Realtime presences (an UpdateItem per visitor and minute) are not counters
            kind = f"{name}:presence" if _is_presence(request) else name
            self.writes[kind] += 1
            if name == "transact_write_items":
                self.items[kind] += 2 * len(request["TransactItems"])
            elif name == "batch_write_item":
                self.items[kind] += sum(map(len, request["RequestItems"].values()))
            else:
                self.items[kind] += 1
            if self.answer_writes:
                return {"UnprocessedItems": {}} if name == "batch_write_item" else {}
            return call(**request)

        return counted


def _website() -> int:
    record = {
        "account": ACCOUNT,
        "id": stored_websites.allocate_id(),
        "domain": DOMAIN,
        "search": DOMAIN,
        "privacy": 0,
        "email": 0,
        "exclude_bots": 1,
        "exclude_params": "fbclid\ngclid",
        "exclude_ips": "203.0.113.7",
        "favorite": False,
        "favorited_at": None,
        "created_at": "2026-01-05T08:00:00.000000Z",
        "updated_at": "2026-01-05T08:00:00.000000Z",
    }
    stored_websites.create_with_claim(record, DOMAIN)
    return int(record["id"])


class RowCounter:
    """The warehouse for the aggregator: counts the rows it is given, keeps none."""

    def __init__(self) -> None:
        self.rows = 0

    def store(self, rows: Any) -> int:
        found = sum(1 for _ in rows)
        self.rows += found
        return found

    def engine(self) -> warehouse.LocalEngine:
        return warehouse.LocalEngine("duckdb", lambda sql: [], self.store)


def fresh_tables(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The template's tables on DynamoDB Local under names of their own, the layer pointed
    at them (a pass that must start from empty counters and delivery records)."""
    spec = template.load()
    names = resources.create_tables(
        spec,
        boto3.client("dynamodb", endpoint_url=endpoint),
        suffix=f"-{uuid.uuid4().hex[:12]}",
    )
    for key, value in resources.table_environment(spec, names).items():
        monkeypatch.setenv(key, value)
    config.reset()


def queue_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The template's other settings (queues, streams: answered by stubs here); the
    signing keyring and the rate limit stay as tests/conftest.py sets them."""
    keep = ("_TABLE", "SIGNING_KEYS", "SIGNING_KEYS_ARN", "ACCOUNT_RATE_LIMIT")
    for key, value in resources.function_environment(template.load(), {}).items():
        if not key.endswith(keep):
            monkeypatch.setenv(key, value)
    unlimited_share(monkeypatch)


def unlimited_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each site's fair share at its largest: the bench replays a site's hits far faster
    than a container may take them (the share's code still runs and is timed)."""
    monkeypatch.setenv(config.PREFIX + "SITE_HITS_PER_SECOND", str(config.MAX_SITE_HITS_PER_SECOND))
    monkeypatch.setenv(config.PREFIX + "SITE_HITS_BURST", str(config.MAX_SITE_HITS_BURST))
    config.reset()


def _pageviews_stored(website_id: int, hits: list[Hit]) -> int:
    days = sorted({hit.at.strftime("%Y-%m-%d") for hit in hits})
    found, _ = stored_stats.daily_counts(website_id, "pageviews", days[0], days[-1])
    return sum(count for _, _, count in found)


def _deployed_batch_size() -> int:
    """The aggregator's BatchSize in template.yaml."""
    function = template.load()["Resources"]["AggregatorFunction"]["Properties"]
    size = function["Events"]["Hits"]["Properties"]["BatchSize"]
    if isinstance(size, dict):  # !Ref a parameter
        size = template.load()["Parameters"][size["Ref"]]["Default"]
    return int(size)


def test_ingestion(
    dynamodb_local_env: None,
    dynamodb_local_endpoint: str,
    monkeypatch: pytest.MonkeyPatch,
    deployed_logging: None,
) -> None:
    queue_environment(monkeypatch)
    website_id = _website()
    events = hit_events(HITS)
    queue = QueueStub()
    dynamodb = WriteCounter(boto3.client("dynamodb", endpoint_url=dynamodb_local_endpoint))
    rows = RowCounter()
    clients.reset()
    stored_websites.forget_all()
    clients.use("sqs", queue)
    clients.use("dynamodb", dynamodb)
    warehouse.use(rows.engine())
    collect = gateway.load_module(EVENT_APP).handler
    aggregate = gateway.load_module(AGGREGATE_APP).handler
    collect_context = gateway.LambdaContext("EventFunction")
    aggregate_context = gateway.LambdaContext("AggregatorFunction")

    def send_all() -> Counter[int]:
        queue.messages.clear()
        return Counter(collect(event, collect_context)["statusCode"] for event in events)

    def count_all(batch: int = BATCH) -> int:
        records = [queues.lambda_record(m, "HitsQueue") for m in queue.messages]
        failures = 0
        for start in range(0, len(records), batch):
            answer = aggregate({"Records": records[start : start + batch]}, aggregate_context)
            failures += len(answer["batchItemFailures"])
        return failures

    try:
        # Counted on DynamoDB Local: every accepted hit is in the stats, and what that cost.
        statuses = send_all()
        assert statuses == {202: HITS}, statuses
        assert count_all() == 0
        writes = counter_writes(dynamodb.writes)
        presences = presence_writes(dynamodb.writes)
        write_items = sum(dynamodb.items.values())
        requests_by_kind = dict(dynamodb.writes)
        sent = [Hit.from_json(m["Body"]) for m in queue.messages]
        events_sent = sum(1 for m in queue.messages if '"event"' in m["Body"])
        assert _pageviews_stored(website_id, sent) == HITS - events_sent
        rows_first = rows.rows

        # The same messages again, on fresh tables, in batches of the deployed size.
        deployed = _deployed_batch_size()
        fresh_tables(dynamodb_local_endpoint, monkeypatch)
        stored_websites.forget_all()
        website_id = _website()
        assert website_id == sent[0].website_id
        dynamodb.writes.clear()
        dynamodb.items.clear()
        assert count_all(deployed) == 0
        assert _pageviews_stored(website_id, sent) == HITS - events_sent
        deployed_writes = counter_writes(dynamodb.writes)
        deployed_write_items = sum(dynamodb.items.values())
        deployed_by_kind = dict(dynamodb.writes)

        # Distinct counters per batch at other batch sizes (each one written once per batch).
        by_batch = {
            size: sum(len(sum_counts(sent[start : start + size])) for start in range(0, HITS, size))
            for size in sorted({BATCH, 2 * BATCH, HITS // 2, HITS, deployed})
        }
        record_bytes = sum(
            len(json.dumps(queues.lambda_record(m, "HitsQueue"))) for m in queue.messages
        ) / len(queue.messages)

        # Timed: both stages in process, stats writes answered by the stub.
        dynamodb.answer_writes = True

        def sample() -> float:
            gc.collect()
            begin = time.process_time()
            send_all()
            count_all()
            return time.process_time() - begin

        with timing.own_garbage_only():
            seconds = timing.interleaved({"pipeline": sample})["pipeline"]
    finally:
        warehouse.use(None)
        clients.reset()
        stored_websites.forget_all()
    report.RESULTS["ingest"] = {
        "hits": HITS,
        "writes": writes,
        "hits_per_s": round(HITS / seconds),
        "deployed_batch_size": deployed,
        "writes_at_deployed_batch": deployed_writes,
        "warehouse_rows": rows_first,
        "presence_writes": presences,
    }
    report.CONTEXT["ingest"] = {
        "batch_size": BATCH,
        "store": "DynamoDB Local (the template's tables); SQS and the warehouse stubbed",
        "write_requests": requests_by_kind,
        "write_requests_at_deployed_batch": deployed_by_kind,
        # Items written, a transaction's twice as DynamoDB bills them: closer to what the
        # writes cost than requests are (an item over 1 KB costs more still).
        "items_written": write_items,
        "items_written_at_deployed_batch": deployed_write_items,
        "custom_events": events_sent,
        "presences": "realtime presences, an UpdateItem per visitor and minute, apart from "
        "`writes`; every hit here comes from an address of its own, so each is a visitor",
        "distinct_counters_if_batch_size": by_batch,
        "sqs_record_bytes": round(record_bytes),
        "stat_names": len(STAT_NAMES),
        "spread": "200 pages and 30 referrers (Zipf), 10 browsers (weighted real user agents), "
        "40% new visits, 3% custom events, 12 countries, one website, one hour",
        "timing": "CPU seconds of the event handler for every hit plus the aggregator for "
        "every batch; stats writes answered by a stub in the timed runs (reads: the "
        "registries of distinct values and the delivery records, by DynamoDB Local)",
    }
