"""The cost model of `make bench`: what a month of tracked hits (1M and 100M), 10,000 API
reads and 1,000 reports costs at AWS list prices, component by component, for each
deployment option of the hit path (`OPTIONS`): the REST API as deployed by default, and
the cheapest path (an HTTP API, or Lambda function URLs for hits and the script).

Pure arithmetic: `bill(inputs)` turns measured figures (`Inputs`, filled by
`test_zz_cost.py` from the same bench run) into priced lines. Every price is a `Price`
and every guess an `Assumption`, each with its reason, so the model can be read and
challenged line by line.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from sitelens.tokens import signing_keys
from tests.bench.deployment import Deployment, Schedule

# ----------------------------------------------------------------------------- prices

PRICES_AS_OF = "June 2025"
PRICE_NOTE = (
    f"AWS list prices as of {PRICES_AS_OF} (us-east-1, from memory, not fetched: check "
    "https://aws.amazon.com/pricing before relying on them); no free tier applied"
)


@dataclass(frozen=True)
class Price:
    usd: float
    per: float  # how many units `usd` buys
    unit: str

    def cost(self, quantity: float) -> float:
        return quantity * self.usd / self.per

    def label(self) -> str:
        per = {1: "", 10_000: "10k ", 1_000_000: "1M "}.get(int(self.per), f"{self.per:g} ")
        whole, _, cents = f"{self.usd:.10f}".partition(".")
        return f"${whole}.{cents.rstrip('0').ljust(2, '0')} / {per}{self.unit}"


# REST API requests, first 333 million a month.
API_GATEWAY_REST = Price(3.50, 1_000_000, "requests")
# HTTP API requests, first 300 million a month (metered in 512 KB steps).
API_GATEWAY_HTTP = Price(1.00, 1_000_000, "requests")
# A Lambda function URL: no charge beyond the function's own requests and duration.
FUNCTION_URL = Price(0.0, 1_000_000, "requests")
LAMBDA_REQUESTS = Price(0.20, 1_000_000, "requests")
# arm64, first 7.5 billion GB-seconds a month (x86 is $0.0000166667).
LAMBDA_ARM64_DURATION = Price(0.0000133334, 1, "GB-s")
# Standard queue, after the first million a month; every 64 KB of a request is one request.
SQS_STANDARD = Price(0.40, 1_000_000, "requests")
# On-demand, Standard table class (halved on 1 November 2024).
DYNAMODB_WRITES = Price(0.625, 1_000_000, "WRU")
DYNAMODB_READS = Price(0.125, 1_000_000, "RRU")
DYNAMODB_STORAGE = Price(0.25, 1, "GB-month")
# Continuous backups: every table of template.yaml has PointInTimeRecoveryEnabled.
DYNAMODB_PITR = Price(0.20, 1, "GB-month")
# Standard log class; Lambda's logs are tiered above 10 TB a month.
LOGS_INGESTION = Price(0.50, 1, "GB")
LOGS_STORAGE = Price(0.03, 1, "GB-month")
# To the internet, after the first 100 GB a month (free across services), up to 10 TB.
DATA_TRANSFER_OUT = Price(0.09, 1, "GB")
SECRETS_MANAGER = Price(0.40, 1, "secret-month")
SECRETS_MANAGER_CALLS = Price(0.05, 10_000, "API calls")
KMS_REQUESTS = Price(0.03, 10_000, "requests")
# Firehose Direct PUT: each record is billed rounded up to 5 KB; Parquet conversion on the
# same ingested volume.
FIREHOSE_INGESTION = Price(0.029, 1, "GB")
FIREHOSE_CONVERSION = Price(0.018, 1, "GB")
FIREHOSE_RECORD_BYTES = 5 * 1024
S3_PUTS = Price(0.005, 1_000, "requests")  # PUT, COPY, POST, LIST
S3_GETS = Price(0.0004, 1_000, "requests")
S3_STORAGE = Price(0.023, 1, "GB-month")
# CloudWatch: a custom metric (name and dimensions) is billed by the hours it has data.
CUSTOM_METRICS = Price(0.30, 1, "metric-month")
ALARMS = Price(0.10, 1, "alarm-metric-month")
LAMBDA_X86_DURATION = Price(0.0000166667, 1, "GB-s")
# X-Ray: traces recorded, and traces retrieved or scanned (the console, the service map).
XRAY_RECORDED = Price(5.00, 1_000_000, "traces")
XRAY_SCANNED = Price(0.50, 1_000_000, "traces")
KMS_KEYS = Price(1.00, 1, "key-month")  # a customer managed key, rotation included
SCHEDULER = Price(1.00, 1_000_000, "invocations")  # EventBridge Scheduler
KINESIS_SHARD_HOURS = Price(0.015, 1, "shard-hours")  # provisioned mode
KINESIS_PUT_UNITS = Price(0.014, 1_000_000, "PUT payload units")  # 25 KB each
KINESIS_PUT_UNIT_BYTES = 25 * 1024
# SnapStart for Python: a published version's snapshot is cached while the version is
# active (3 hours at least), and each environment restored from it is billed by its memory.
SNAPSTART_CACHE = Price(0.0000015046, 1, "GB-s")
SNAPSTART_RESTORE = Price(0.0001397998, 1, "GB restored")

# The always-free tier (not the 12-month one), shown apart: the model's totals are without
# it. Each allowance is of the price's unit and shared by every line at that price.
FREE_TIER: tuple[tuple[Price, float], ...] = (
    (LAMBDA_REQUESTS, 1_000_000),
    (LAMBDA_ARM64_DURATION, 400_000),
    (SQS_STANDARD, 1_000_000),
    (DYNAMODB_STORAGE, 25),
    (CUSTOM_METRICS, 10),
    (ALARMS, 10),
    (LOGS_INGESTION, 5),  # 5 GB of ingestion, archive storage and Insights scans together
    (XRAY_RECORDED, 100_000),
    (XRAY_SCANNED, 1_000_000),
    (KMS_REQUESTS, 20_000),
    (DATA_TRANSFER_OUT, 100),
    (SCHEDULER, 14_000_000),
)

# Every resource type the stack may deploy, and how the model prices it: a type missing
# here fails the bench (test_zz_cost), so nothing new goes unpriced.
PRICED_RESOURCES: dict[str, str] = {
    "AWS::Lambda::Function": "requests and GB-s of each one the workload invokes",
    "AWS::Lambda::EventSourceMapping": "SQS receives, idle long polls of each queue",
    "AWS::SQS::Queue": "SendMessage, ReceiveMessage, DeleteMessageBatch",
    "AWS::DynamoDB::Table": "reads, writes, storage, PITR, KMS requests of its key",
    "AWS::ApiGateway::Stage": "requests of the hit API, access log lines, tracing",
    "AWS::ApiGatewayV2::Stage": "requests of the hit API, access log lines",
    "AWS::Logs::LogGroup": "ingestion and storage for its retention",
    "AWS::CloudWatch::Alarm": "per alarm metric",
    "AWS::Scheduler::Schedule": "invocations, and its function's runs",
    "AWS::SecretsManager::Secret": "per secret, and GetSecretValue calls",
    "AWS::KMS::Key": "per key",
    "AWS::KinesisFirehose::DeliveryStream": "ingestion (5 KB records) and Parquet conversion",
    "AWS::Kinesis::Stream": "shard-hours, PUT payload units, KMS requests of its data keys",
    "AWS::S3::Bucket": "PUTs, GETs and storage of the warehouse",
    "AWS::Lambda::Version": "its SnapStart snapshot's cache and restores (else no charge)",
}
FREE_RESOURCES: dict[str, str] = {
    "AWS::ApiGateway::RestApi": "billed by its stage's requests",
    "AWS::ApiGateway::Deployment": "no charge",
    "AWS::ApiGateway::Account": "no charge",
    "AWS::ApiGatewayV2::Api": "billed by its stage's requests",
    "AWS::Lambda::Permission": "no charge",
    "AWS::Lambda::Alias": "no charge: its requests are its version's",
    "AWS::Lambda::Url": "no charge: its requests are the function's invocations",
    "AWS::Lambda::LayerVersion": "no charge (its storage is within Lambda's 75 GB)",
    "AWS::Lambda::EventInvokeConfig": "no charge; its failures go to a priced queue",
    "AWS::IAM::Role": "no charge",
    "AWS::IAM::ManagedPolicy": "no charge",
    "AWS::KMS::Alias": "no charge",
    "AWS::Logs::MetricFilter": "no charge; its metric is billed only in hours it matches",
    "AWS::SNS::Topic": "alarm notifications: the first 1,000 emails a month are free",
    "AWS::SNS::Subscription": "no charge",
    "AWS::Glue::Database": "the first million catalog objects are free",
    "AWS::Glue::Table": "the first million catalog objects are free",
    "AWS::Athena::WorkGroup": "billed by bytes scanned by API queries, not by the hit path",
    "AWS::SES::ConfigurationSet": "no charge; emails are billed as sent (digests, opt-in)",
    "AWS::SES::ConfigurationSetEventDestination": "no charge",
    "AWS::WAFv2::WebACL": "only when WafRateLimitPer5Min > 0: not priced (off by default)",
    "AWS::WAFv2::WebACLAssociation": "no charge beyond its web ACL",
}

# The best-known open-source serverless analytics, in its own worst-case sheet: 1 site,
# a 15-minute Firehose buffer, 200 dashboard views a month (its README's table, updated
# later, says $10.18 for the same million).
SWA_USD_PER_MILLION_VIEWS = 14.64
SWA_SOURCE = (
    "rehanvdm/serverless-website-analytics, docs/COST.md, 'Current WORST case projected "
    "cost', 1,000,000 views (https://github.com/rehanvdm/serverless-website-analytics/blob/"
    "main/docs/COST.md)"
)

# ----------------------------------------------------------------------------- workload

HITS = 1_000_000  # tracked hits a month (each one POST /api/event): the default volume
VOLUMES = (1_000_000, 10_000_000, 100_000_000, 1_000_000_000)  # every option is priced at
PROFILES = ("standard", "lean")  # CostProfile of template.yaml
READS = 10_000  # API reads a month, each a list page (the dearest read)
REPORTS = 1_000  # reports created a month
SECONDS = 730 * 3600  # AWS prices a month as 730 hours
DAYS = SECONDS / 86_400

# DynamoDB's units and overheads.
WRITE_UNIT_BYTES = 1024
READ_UNIT_BYTES = 4096
ITEM_OVERHEAD_BYTES = 100  # storage adds 100 bytes per item and per index entry
GIB = 2**30


@dataclass(frozen=True)
class Assumption:
    value: float
    reason: str


# What the bench cannot measure, each with why this value.
LAMBDA_FULL_VCPU_MB = Assumption(
    1769, "Lambda gives a function one full vCPU at 1,769 MB and a proportional share below"
)
BENCH_CORE_PER_LAMBDA_CORE = Assumption(
    1.0, "one core of the bench machine taken as fast as a Graviton vCPU per thread (unmeasured)"
)
INIT_CPU_SHARE = Assumption(
    1.0,
    "init runs with unthrottled CPU at any memory size (observed, not documented): the "
    "bench's cold start wall time is used unscaled",
)
KEYRING_READERS = Assumption(
    10,
    "warm containers holding the signing keyring at any hour (every keyed route, share "
    "pages, digests): each reads it again after tokens.signing_keys.MAX_AGE_SECONDS",
)
DYNAMODB_MS = Assumption(
    5.0, "one in-region DynamoDB GetItem/UpdateItem from Lambda, SDK included: single-digit ms"
)
KINESIS_PUT_MS = Assumption(
    20.0, "a Kinesis PutRecord from Lambda, like an SQS SendMessage: tens of milliseconds"
)
PRESENCE_VISITOR_BYTES = Assumption(
    60.0,
    "a visitor's entry in a site's presence item of a flush (HitStream=kinesis): digest, "
    "page and source (data.realtime.put_flush)",
)
KINESIS_KMS_REQUESTS_PER_SHARD_HOUR = Assumption(
    24.0,
    "Kinesis asks KMS for a data key about every 5 minutes per shard, for the producer and "
    "for each consumer's reads",
)
SQS_SEND_MS = Assumption(
    20.0, "SQS's FAQ puts typical SendMessage latency in the tens of milliseconds"
)
FETCH_MS = Assumption(
    1000.0,
    "a report fetches the page, robots.txt and a missing-page probe in parallel "
    "(DNS, TLS, one slow response) from an ordinary site; the deadline is 10 s",
)
REPORT_PAGE = Assumption(
    300.0,
    "KB of HTML analysed per report: the bench's 300 KB page, bigger than most pages' "
    "HTML, so the analysis time errs high",
)
REPORT_ROUND_TRIPS = Assumption(
    3.0,
    "a report create's DynamoDB calls after auth: allocate_id, then a transaction "
    "(counted twice: transactions take about two round trips)",
)
ID_COUNTER_WRU = Assumption(
    1.0,
    "allocate_id's UpdateItem of the reports table's counter item, which test_writes "
    "(the transaction) leaves out",
)
SCRIPT_REQUESTS_PER_PAGEVIEW = Assumption(
    0.4,
    "GET /js/script.js per pageview, in every option: browsers cache the script a day "
    "(max-age=86400); a new visit (40% of the bench's hits) may fetch it, a page within "
    "a visit does not",
)
DELIVERY_ITEM_BYTES = Assumption(
    100.0,
    "a delivery record's keys and attributes besides its ~8 bytes per hit (the aggregator "
    "writes one per 10-second bucket of hit time per batch, BatchWriteItem)",
)
DELIVERY_BUCKET_S = Assumption(10.0, "delivery records group hits by 10 seconds of hit time")
DELIVERY_BYTES_PER_HIT = Assumption(8.0, "a hit's digest in its bucket's delivery record")
ACTIVE_SITES = Assumption(
    10.0,
    "sites with traffic in an hour (the hourly run writes a part per site-day touched; "
    "the daily merge folds each site-day's parts into its file)",
)
FIREHOSE_BUFFER_S = Assumption(
    300.0, "the stream's buffering interval (template.yaml): one landing object per 5 minutes"
)
XRAY_SCANS_PER_TRACE = Assumption(
    1.0, "each recorded trace is retrieved or scanned once (service map, console, insights)"
)
XRAY_RESERVOIR_PER_S = Assumption(
    1.0, "X-Ray's default sampling rule traces the first request each second ..."
)
XRAY_RATE = Assumption(0.05, "... and 5% of the requests after it in that second")
SCHEDULED_RUN_MS = Assumption(
    300.0,
    "a scheduled function's run that finds little to do (alerts, goal webhooks, audit "
    "schedules, digests): a few DynamoDB queries",
)
ACCESS_LOG_FIELD_BYTES = Assumption(
    12.0, "a typical value of an access log's $context variable not listed in ACCESS_LOG_VALUES"
)
COMPACTION_OVERHEAD_S = Assumption(
    3.0,
    "per compaction run (hourly, or the daily merge) besides its rows: DuckDB's start, S3 "
    "listing, fetching and putting the files (round trips, not bytes)",
)
API_COLD_SHARE = Assumption(
    0.5,
    "share of API reads and report creates that start an environment: one request "
    "every 4 minutes over several functions, idle environments are reclaimed in minutes",
)
HIT_PATH_INITS_PER_HOUR = Assumption(
    1.0,
    "cold starts per hour of each always-busy hit-path function: environments are "
    "replaced every few hours and scale out at peaks; one an hour errs high",
)
SNAPSTART_RESTORES = Assumption(
    720.0,
    "environments a month restored from each SnapStart function's snapshot: MCP clients call "
    "in sessions of a few requests and idle environments are reclaimed within minutes, so "
    "about one new environment an hour (the snapshot's cache, not this, is most of its cost)",
)
MESSAGES_PER_RECEIVE = Assumption(
    1.0,
    "messages per non-empty ReceiveMessage: a long poll returns with the first message "
    "that arrives; at 38 hits/s over 5 pollers, 0.15 arrive within a receive's round "
    "trip, so errs high at 100M",
)
IDLE_POLLERS = Assumption(
    5.0,
    "Lambda's SQS event source long-polls (20 s) with 5 pollers even when the queue is "
    "empty; their empty receives are billed",
)
LONG_POLL_S = Assumption(20.0, "the long-poll wait of Lambda's SQS pollers")
KMS_REQUESTS_PER_TABLE_HOUR = Assumption(
    12.0,
    "rough: SSEEnabled tables use the AWS-managed KMS key, whose table key DynamoDB "
    "fetches again after minutes unused; one call per table every 5 minutes",
)
GATEWAY_HEADER_BYTES = Assumption(
    300.0,
    "what API Gateway adds to each response: status line, Date, Content-Length, "
    "Connection, x-amzn-RequestId, x-amz-apigw-id, X-Amzn-Trace-Id",
)
TRAFFIC = Assumption(
    1.0,
    "hits arrive as a Poisson stream at the month's average rate; daily peaks would "
    "make batches larger by day and smaller at night",
)


def assumptions() -> dict[str, dict[str, Any]]:
    return {
        name: {"value": value.value, "reason": value.reason}
        for name, value in globals().items()
        if isinstance(value, Assumption)
    }


# ----------------------------------------------------------------------------- arithmetic


def cpu_stretch(memory_mb: int) -> float:
    """How much longer CPU-bound work takes in a function of `memory_mb` than on a bench core."""
    share = min(1.0, memory_mb / LAMBDA_FULL_VCPU_MB.value)
    return BENCH_CORE_PER_LAMBDA_CORE.value / share


def gb_seconds(invocations: float, billed_ms: float, memory_mb: int) -> float:
    return invocations * billed_ms / 1000 * memory_mb / 1024


def billed_ms(ms: float) -> int:
    """Lambda rounds each invocation's duration up to the millisecond."""
    return max(1, math.ceil(ms))


def cached_lookups(events: float, rate_per_s: float, ttl_s: float) -> float:
    """Look-ups made by a cache of `ttl_s` seconds for `events` Poisson arrivals: each
    look-up is followed by `rate * ttl` events, on average, answered from the cache."""
    return events / (1 + rate_per_s * ttl_s)


def poisson(rng: random.Random, mean: float) -> int:
    """A Poisson draw: Knuth's method for small means, the normal approximation above 500
    (where exp(-mean) would underflow)."""
    if mean > 500:
        return max(0, round(rng.gauss(mean, math.sqrt(mean))))
    limit, count, product = math.exp(-mean), 0, rng.random()
    while product > limit:
        count += 1
        product *= rng.random()
    return count


def long_polls(rate_per_s: float, pollers: float, wait_s: float, seconds: float) -> float:
    """ReceiveMessage calls of `pollers` long-polling a queue that gets `rate_per_s`
    messages (Poisson, shared evenly): a poll ends at its first message or after `wait_s`,
    so it lasts (1 - exp(-r * wait)) / r on average, r being one poller's share."""
    share = rate_per_s / pollers
    mean_s = wait_s if share == 0 else (1 - math.exp(-share * wait_s)) / share
    return pollers * seconds / mean_s


def window_batches(
    hits: int, rate_per_s: float, window_s: float, batch_size: int, seed: int = 3
) -> list[int]:
    """Batch sizes when each batch opens with a hit and takes what arrives within the
    window (Poisson arrivals), up to `batch_size`; their sum is `hits`."""
    rng = random.Random(seed)
    sizes: list[int] = []
    left = hits
    while left:
        size = min(batch_size, left, 1 + poisson(rng, rate_per_s * window_s))
        sizes.append(size)
        left -= size
    return sizes


def read_units(item_bytes: int, consistent: bool) -> float:
    units = math.ceil(item_bytes / READ_UNIT_BYTES)
    return units if consistent else units / 2


def write_units(item_bytes: int) -> int:
    return max(1, math.ceil(item_bytes / WRITE_UNIT_BYTES))


# Lambda's text-format platform log lines, as CloudWatch Logs ingests them.
_REQUEST_ID = "8d6f4c2e-3b1a-4e5f-9a7b-0c1d2e3f4a5b"
_START = f"START RequestId: {_REQUEST_ID} Version: $LATEST\n"
_END = f"END RequestId: {_REQUEST_ID}\n"
_REPORT = (
    f"REPORT RequestId: {_REQUEST_ID}\tDuration: 12.34 ms\tBilled Duration: 13 ms\t"
    "Memory Size: 512 MB\tMax Memory Used: 87 MB\t\n"
)
_INIT = (
    "INIT_START Runtime Version: python:3.13.v31\tRuntime Version ARN: "
    f"arn:aws:lambda:us-east-1::runtime:{'0' * 64}\n"
)
_INIT_DURATION = "Init Duration: 345.67 ms\t"


def platform_log_bytes(cold: bool = False) -> int:
    """Bytes of Lambda's own START, END and REPORT lines for one invocation."""
    size = len(_START) + len(_END) + len(_REPORT)
    return size + (len(_INIT) + len(_INIT_DURATION) if cold else 0)


# ----------------------------------------------------------------------------- the model


@dataclass
class Inputs:
    """What the model needs; `sources` says for each figure whether this run measured it."""

    # template.yaml as deployed, by `deployment_key(profile, hit_path)`
    deployments: dict[str, Deployment]
    batch_size: int  # AggregatorFunction's BatchSize
    window_s: float  # its MaximumBatchingWindowInSeconds
    writers: int  # the aggregator's parallel UpdateItems
    website_cache_s: float  # the hit path's cached website look-ups
    key_cache_s: float  # the API's cached key look-ups
    event_cpu_ms: float  # event handler, CPU per hit
    aggregate_cpu_ms: float  # ingest benchmark: CPU per hit of both stages
    warm_get_us: float
    warm_list_us: float
    warm_create_us: float
    seo_ms: float  # analysis of one REPORT_PAGE page
    init_ms: dict[str, float]  # cold start, by function name
    items_per_page: int  # items read by the dearest list page (no search)
    requests_per_page: int
    report_create_wru: float  # the create transaction (test_writes)
    report_item_bytes: int
    report_storage_bytes: int  # a report and its index entries, with overheads
    batching: dict[str, dict[str, float]]  # by `batching_key(hits, window)`: see `batching`
    full_batch_writes_per_hit: float  # ingest benchmark at the deployed BatchSize
    message_bytes: int  # a hit's SQS message
    stats_items_per_day: float
    stats_item_bytes: float
    event_response_bytes: int  # the event function's 202: body and headers
    script_response_bytes: int  # GET /js/script.js, 200 with the script as a browser gets it
    event_log_bytes: float  # the event function's own log and EMF bytes per invocation
    aggregate_log_bytes: float  # the aggregator's own log bytes per invocation
    pageviews_per_hit: float = 0.97  # hits that are pageviews (the script loads on those)
    # realtime UpdateItems per hit, made by the event function as it accepts a pageview or a
    # custom event (analytics.realtime.note; none for an engagement)
    presences_per_hit: float = 1.0
    rows_per_hit: float = 1.0  # warehouse rows per hit (excluded hits have none)
    row_json_bytes: float = 690.0  # a row as a JSON line of a Firehose record (data.warehouse)
    parquet_bytes_per_row: float = 60.0  # compacted storage (test_warehouse)
    compaction_rows_per_s: float = 200_000.0  # folded by the daily merge (test_warehouse)
    hourly_rows_per_s: float = 200_000.0  # split into parts by the hourly run (test_warehouse)
    custom_metrics: int = 4  # EMF metrics the hit path emits every hour
    sources: dict[str, str] = field(default_factory=dict)


def deployment_key(profile: str, hit_path: str, hit_stream: str = "queue") -> str:
    return f"{profile}/{hit_path}/{hit_stream}"


def batching_key(hits: int, window_s: float) -> str:
    return f"{hits}@{window_s:g}s"


def timed_batches(
    count: int, rate_per_s: float, window_s: float, batch_size: int, seed: int = 3
) -> list[list[float]]:
    """Arrival times (s) of `count` Poisson hits, in the batches Lambda's poller makes: a
    batch opens with a hit and closes when `window_s` has passed or it holds `batch_size`."""
    rng = random.Random(seed)
    batches: list[list[float]] = []
    current: list[float] = []
    at = opened = 0.0
    for _ in range(count):
        at += rng.expovariate(rate_per_s)
        if current and (at >= opened + window_s or len(current) >= batch_size):
            batches.append(current)
            current = []
        if not current:
            opened = at
        current.append(at)
    if current:
        batches.append(current)
    return batches


def batching(
    batches: Sequence[Sequence[Any]],
    times: Sequence[Sequence[float]],
    keys_of: Any,
    key_bytes: Any,
    writers: int,
) -> dict[str, float]:
    """Per hit and per batch figures of the aggregator for these batches of hits (arriving
    at `times`): `keys_of(batch)` is the set of counters a batch writes (daily and month
    roll-ups), `key_bytes(key)` a counter item's size."""
    hits = sum(len(b) for b in batches)
    bucket_of = DELIVERY_BUCKET_S.value
    per_bucket: Counter[int] = Counter(int(t // bucket_of) for ts in times for t in ts)
    batches_in_bucket: Counter[int] = Counter(
        bucket for ts in times for bucket in {int(t // bucket_of) for t in ts}
    )
    counter_wru = delivery_wru = delivery_rru = keys_total = 0.0
    writes = rounds = deletes = 0
    for batch, ts in zip(batches, times, strict=True):
        keys = keys_of(batch)
        keys_total += len(keys)
        # Counters in transactions of up to 99 and a commit marker, each item billed twice
        chunks = math.ceil(len(keys) / 99)
        counter_wru += 2 * (sum(write_units(key_bytes(key)) for key in keys) + chunks)
        buckets = Counter(int(t // bucket_of) for t in ts)
        # A delivery record per bucket (BatchWriteItem, 25 a request), read back by a
        # strongly consistent Query per bucket: every batch's record of that bucket.
        delivery_wru += sum(
            write_units(round(DELIVERY_ITEM_BYTES.value + DELIVERY_BYTES_PER_HIT.value * n))
            for n in buckets.values()
        )
        delivery_rru += sum(
            max(
                1,
                math.ceil(
                    (
                        DELIVERY_ITEM_BYTES.value * batches_in_bucket[bucket]
                        + DELIVERY_BYTES_PER_HIT.value * per_bucket[bucket]
                    )
                    / READ_UNIT_BYTES
                ),
            )
            for bucket in buckets
        )
        writes += chunks + math.ceil(len(buckets) / 25)
        rounds += math.ceil(chunks / writers)
        deletes += math.ceil(len(batch) / 10)  # DeleteMessageBatch: 10 messages a call
    return {
        "hits_per_batch": hits / len(batches),
        "batches_per_hit": len(batches) / hits,
        "counters_per_hit": keys_total / hits,
        "writes_per_hit": writes / hits,
        "counter_wru_per_hit": counter_wru / hits,
        "delivery_wru_per_hit": delivery_wru / hits,
        "delivery_rru_per_hit": delivery_rru / hits,
        "wru_per_hit": (counter_wru + delivery_wru) / hits,
        "write_rounds_per_batch": rounds / len(batches),
        "deletes_per_batch": deletes / len(batches),
    }


@dataclass(frozen=True)
class Option:
    """A deployment of the hit path: what serves POST /api/event and the script, and the
    aggregator's batching window."""

    name: str
    title: str
    event_api: Price  # POST /api/event
    script_api: Price  # GET /js/script.js (the script function behind it, every option)
    window_s: float  # MaximumBatchingWindowInSeconds
    hit_path: str = "HttpApi"  # the HitPath parameter it is deployed with
    hit_stream: str = "queue"  # the HitStream parameter: queue, or kinesis

    def parameters(self) -> dict[str, str]:
        """The template's parameters this option is deployed with."""
        return {"HitPath": self.hit_path, "HitStream": self.hit_stream}

    def api_name(self, api: Price | None = None) -> str:
        """What serves `api` (POST /api/event's, unless another is given), by its price."""
        return {id(API_GATEWAY_HTTP): "HTTP API", id(FUNCTION_URL): "function URL"}.get(
            id(api or self.event_api), "REST"
        )


OPTIONS = (
    Option("rest_api", "REST API (default)", API_GATEWAY_REST, API_GATEWAY_REST, 10.0, "RestApi"),
    # the cheap options wait the longest window SQS allows (HitsBatchingWindowSeconds=300):
    # statistics up to five minutes late (realtime is not: it reads presences)
    Option("http_api", "HTTP API", API_GATEWAY_HTTP, API_GATEWAY_HTTP, 300.0),
    # HitPath=FunctionUrl: the event function's own URL, no API price (docs/operations.md)
    Option(
        "function_url",
        "function URLs",
        FUNCTION_URL,
        FUNCTION_URL,
        300.0,
        hit_path="FunctionUrl",
    ),
    # past about 10M hits a month, a Kinesis stream instead of per-hit SQS requests, and
    # presences written once per site and flush (docs/pipeline.md, "Ingest: queue or stream")
    Option(
        "function_url_kinesis",
        "function URLs, Kinesis stream",
        FUNCTION_URL,
        FUNCTION_URL,
        300.0,
        hit_path="FunctionUrl",
        hit_stream="kinesis",
    ),
)
CHEAPEST = "function_url"  # at HITS (test_options); the stream's option wins from ~10M
# The lean profile's targets (issue 44): its cheapest option at each volume, all in, no free
# tier.
LEAN_TARGETS_USD = {1_000_000: 5.00, 100_000_000: 150.00}


@dataclass(frozen=True)
class Line:
    path: str  # "hits", "api" or "fixed"
    service: str
    component: str
    quantity: float
    unit: str
    price: Price
    usd: float

    def as_dict(self) -> dict[str, Any]:
        found = asdict(self)
        found["unit_price"] = self.price.label()
        found["price"] = asdict(self.price)
        found["usd"] = round(self.usd, 4)
        return found


def _line(path: str, service: str, component: str, quantity: float, price: Price) -> Line:
    return Line(path, service, component, quantity, price.unit, price, price.cost(quantity))


def sampled_share(rate_per_s: float) -> float:
    """Share of Poisson requests X-Ray's default rule traces: the first each second, then
    XRAY_RATE of the rest (E[min(N, reservoir)] for a reservoir of one)."""
    if rate_per_s <= 0:
        return 1.0
    first = 1 - math.exp(-rate_per_s * XRAY_RESERVOIR_PER_S.value)
    return (first + XRAY_RATE.value * (rate_per_s - first)) / rate_per_s


# Typical values of an access log's $context variables (the rest: ACCESS_LOG_FIELD_BYTES).
ACCESS_LOG_VALUES = {
    "requestId": _REQUEST_ID,
    "requestTime": "09/Apr/2026:12:34:56 +0000",
    "httpMethod": "POST",
    "resourcePath": "/api/event",
    "path": "/v1/api/event",
    "routeKey": "POST /api/event",
    "status": "202",
    "integrationStatus": "202",
    "error.responseType": "-",
    "error.message": "-",
}


def access_log_bytes(format_: str) -> int:
    """One access log line of this format, rendered with typical values, and its newline."""
    rendered = re.sub(
        r"\$context\.([A-Za-z.]+)",
        lambda found: ACCESS_LOG_VALUES.get(found[1], "x" * int(ACCESS_LOG_FIELD_BYTES.value)),
        format_,
    )
    return len(rendered.encode()) + 1


def free_tier(lines: Iterable[Line]) -> float:
    """What the always-free tier takes off these lines (each allowance used once)."""
    credit = 0.0
    for price, allowance in FREE_TIER:
        used = sum(line.quantity for line in lines if line.price is price)
        credit += price.cost(min(used, allowance))
    return credit


def hits_drain(deployed: Deployment) -> Schedule | None:
    """HitsDrainFunction's schedule (CostProfile=lean), if the deployment has it."""
    return next((s for s in deployed.schedules if s.function == "HitsDrainFunction"), None)


def batch_window_s(m: Inputs, option: Option, profile: str) -> float:
    """How long the aggregator's batches gather hits: the option's batching window of the
    SQS event source, or (CostProfile=lean) HitsDrainFunction's period, a run taking what
    waits."""
    drain = hits_drain(m.deployments[deployment_key(profile, option.hit_path, option.hit_stream)])
    return SECONDS / drain.runs_a_month if drain else option.window_s


def _queue_lines(
    m: Inputs,
    hits: int,
    rate: float,
    b: dict[str, float],
    window_s: float,
    drain_receives: float | None,
    deletes: float,
) -> list[Line]:
    """HitsQueue's requests: a send per hit; receives by the event source's long pollers,
    or by the drain (`drain_receives`, CostProfile=lean); deletes of ten."""
    lines: list[Line] = []
    drain = drain_receives is not None
    chunks = math.ceil(m.message_bytes / (64 * 1024))
    lines.append(_line("hits", "SQS", "SendMessage", hits * chunks, SQS_STANDARD))
    if drain:
        lines.append(
            _line(
                "hits",
                "SQS",
                f"ReceiveMessage (the drain, every {window_s:g} s: ten hits a request)",
                drain_receives or 0.0,
                SQS_STANDARD,
            )
        )
    else:
        polls = long_polls(rate, IDLE_POLLERS.value, LONG_POLL_S.value, SECONDS)
        receives = max(polls, hits / MESSAGES_PER_RECEIVE.value)
        lines.append(
            _line(
                "hits",
                "SQS",
                f"ReceiveMessage ({IDLE_POLLERS.value:g} long pollers, "
                f"{max(0.0, receives - hits / MESSAGES_PER_RECEIVE.value):,.0f} of them empty)",
                receives,
                SQS_STANDARD,
            )
        )
    lines.append(
        _line(
            "hits",
            "SQS",
            f"DeleteMessageBatch (batches of {b['hits_per_batch']:.1f} hits, "
            f"{window_s:g} s {'drain' if drain else 'window'})",
            deletes,
            SQS_STANDARD,
        )
    )
    return lines


def _stream_lines(m: Inputs, hits: int, shards: int) -> list[Line]:
    """HitsDataStream (HitStream=kinesis): its shards, a PUT payload unit per hit, and KMS's
    data keys; its consumers read at no charge per request."""
    units = math.ceil(m.message_bytes / KINESIS_PUT_UNIT_BYTES)
    return [
        _line(
            "fixed",
            "Kinesis",
            f"shard-hours: {shards} provisioned shard(s)",
            shards * SECONDS / 3600,
            KINESIS_SHARD_HOURS,
        ),
        _line("hits", "Kinesis", "PUT payload units: a hit each", hits * units, KINESIS_PUT_UNITS),
        _line(
            "fixed",
            "KMS",
            "requests: the stream's data keys (aws/kinesis)",
            shards * KINESIS_KMS_REQUESTS_PER_SHARD_HOUR.value * SECONDS / 3600,
            KMS_REQUESTS,
        ),
    ]


def bill(
    m: Inputs, option: Option = OPTIONS[0], hits: int = HITS, profile: str = PROFILES[0]
) -> list[Line]:
    """A month's lines for `hits` tracked hits through the hit path `option`, with
    template.yaml deployed under the CostProfile `profile`."""
    lines: list[Line] = []
    deployed = m.deployments[deployment_key(profile, option.hit_path, option.hit_stream)]
    mem = {name: f.memory_mb for name, f in deployed.functions.items()}
    duration = {
        name: LAMBDA_ARM64_DURATION if f.architecture == "arm64" else LAMBDA_X86_DURATION
        for name, f in deployed.functions.items()
    }
    apis = {"EventFunction": option.event_api, "ScriptFunction": option.script_api}
    served_by_url = {function for function, api in apis.items() if api is FUNCTION_URL}
    if served_by_url != deployed.function_urls:  # the option says what the template deploys
        raise ValueError(f"{option.name}: function URLs {sorted(deployed.function_urls)} deployed")
    rate = hits / SECONDS
    api_requests = READS + REPORTS
    drain = hits_drain(deployed)
    window_s = batch_window_s(m, option, profile)
    stream = bool(deployed.stream_sources)  # HitStream=kinesis
    aggregator = (
        "StreamAggregatorFunction"
        if stream
        else "HitsDrainFunction"
        if drain
        else "AggregatorFunction"
    )
    presence_flush = next(
        (s for s in deployed.stream_sources if s.function == "PresenceFunction"), None
    )
    # a flush is a batch of the presence consumer: one every window while hits come
    flushes = (
        SECONDS
        / presence_flush.window_s
        * (1 - math.exp(-rate * presence_flush.window_s))
        * deployed.stream_shards
        if presence_flush
        else 0.0
    )
    b = m.batching[batching_key(hits, window_s)]

    # Hit path: the edge, the event function, the queue, the aggregator, the counters.
    script_loads = hits * m.pageviews_per_hit * SCRIPT_REQUESTS_PER_PAGEVIEW.value
    name = option.api_name()
    lines.append(_line("hits", "API Gateway", f"{name}: POST /api/event", hits, option.event_api))
    lines.append(
        _line(
            "hits",
            "API Gateway",
            f"{option.api_name(option.script_api)}: GET /js/script.js",
            script_loads,
            option.script_api,
        )
    )
    script_invocations = script_loads  # each a script function's invocation, as deployed
    batches = hits * b["batches_per_hit"]
    # the aggregator's invocations: a batch each, or a drain run each (a run takes every
    # batch waiting, and runs on its schedule whether any waits or not)
    aggregations = drain.runs_a_month if drain else batches
    compaction_runs = [s for s in deployed.schedules if s.function == "CompactionFunction"]
    merges = sum(s.runs_a_month for s in compaction_runs if "merge" in s.input)
    compactions = sum(s.runs_a_month for s in compaction_runs) - merges  # the hourly runs
    lines.append(
        _line(
            "hits",
            "Lambda",
            "requests: event, script, aggregator, compaction (hourly and daily)",
            hits + script_invocations + aggregations + compactions + merges + flushes,
            LAMBDA_REQUESTS,
        )
    )

    website_lookups = cached_lookups(hits, rate, m.website_cache_s)
    event_ms = (
        m.event_cpu_ms * cpu_stretch(mem["EventFunction"])
        + (KINESIS_PUT_MS.value if stream else SQS_SEND_MS.value)
        + m.presences_per_hit * (0 if stream else 1) * DYNAMODB_MS.value
        + website_lookups / hits * 2 * DYNAMODB_MS.value
    )
    exists_lookups = cached_lookups(batches, batches / SECONDS, m.website_cache_s)
    batch_ms = (
        b["hits_per_batch"] * m.aggregate_cpu_ms * cpu_stretch(mem[aggregator])
        + exists_lookups / batches * DYNAMODB_MS.value
        + b["write_rounds_per_batch"] * DYNAMODB_MS.value
        + 2 * DYNAMODB_MS.value  # the delivery records: written, then read back
    )
    # A drain also receives its batches (ten hits a request, one empty at the end of a run)
    # and deletes them (ten a request; the event source deletes for the aggregator).
    drain_receives = hits / 10 + aggregations if drain else 0.0
    deletes = batches * b["deletes_per_batch"]
    aggregate_ms = (
        (batches * batch_ms + (drain_receives + deletes) * SQS_SEND_MS.value) / aggregations
        if drain
        else batch_ms
    )
    script_ms = m.warm_get_us / 1000 * cpu_stretch(mem["ScriptFunction"])
    inits = HIT_PATH_INITS_PER_HOUR.value * SECONDS / 3600
    for function, invocations, ms in (
        ("EventFunction", hits, event_ms),
        (aggregator, aggregations, aggregate_ms),
        ("ScriptFunction", script_invocations, script_ms),
        ("PresenceFunction", flushes, 2 * DYNAMODB_MS.value),  # a BatchWriteItem, rounded up
    ):
        if not invocations:
            continue
        init = m.init_ms[function] * INIT_CPU_SHARE.value
        quantity = gb_seconds(invocations, billed_ms(ms), mem[function]) + gb_seconds(
            inits, billed_ms(init), mem[function]
        )
        lines.append(
            _line(
                "hits",
                "Lambda",
                f"GB-s: {function} ({mem[function]} MB, {billed_ms(ms)} ms; "
                f"{inits:.0f} inits x {billed_ms(init)} ms)",
                quantity,
                duration[function],
            )
        )
    # Compaction in two levels: each hour the hour's rows into parts, each day a day's parts
    # folded into its file (never a whole day rewritten each hour)
    rows_month = hits * m.rows_per_hit
    hour_rows = rows_month / compactions
    day_rows = rows_month / merges
    hourly_s = COMPACTION_OVERHEAD_S.value + hour_rows / m.hourly_rows_per_s
    merge_s = COMPACTION_OVERHEAD_S.value + day_rows / m.compaction_rows_per_s
    lines.append(
        _line(
            "hits",
            "Lambda",
            f"GB-s: compaction ({mem['CompactionFunction']} MB): hourly {hourly_s:.1f} s "
            f"({hour_rows:,.0f} rows), daily merge {merge_s:.1f} s ({day_rows:,.0f} rows)",
            gb_seconds(compactions, hourly_s * 1000, mem["CompactionFunction"])
            + gb_seconds(merges, merge_s * 1000, mem["CompactionFunction"]),
            duration["CompactionFunction"],
        )
    )

    if stream:
        lines += _stream_lines(m, hits, deployed.stream_shards)
    else:
        lines += _queue_lines(
            m, hits, rate, b, window_s, drain_receives if drain else None, deletes
        )
    lines.append(
        _line(
            "hits",
            "DynamoDB",
            f"writes: counters, daily and monthly ({b['counters_per_hit']:.2f} per hit, "
            "transactions)",
            hits * b["counter_wru_per_hit"],
            DYNAMODB_WRITES,
        )
    )
    lines.append(
        _line(
            "hits",
            "DynamoDB",
            "writes: delivery records (a 10 s bucket per batch)",
            hits * b["delivery_wru_per_hit"],
            DYNAMODB_WRITES,
        )
    )
    lines.append(
        _line(
            "hits",
            "DynamoDB",
            "reads: delivery records (consistent Query per bucket per batch)",
            hits * b["delivery_rru_per_hit"],
            DYNAMODB_READS,
        )
    )
    if flushes:
        # one item per site and flush, of its visitors: one site here, every hit a visitor
        per_flush = hits / flushes
        item = ITEM_OVERHEAD_BYTES + per_flush * PRESENCE_VISITOR_BYTES.value
        lines.append(
            _line(
                "hits",
                "DynamoDB",
                f"writes: realtime presences, a site's item per flush ({flushes:,.0f} flushes "
                f"of {per_flush:.1f} hits)",
                flushes * write_units(math.ceil(item)),
                DYNAMODB_WRITES,
            )
        )
    else:
        lines.append(
            _line(
                "hits",
                "DynamoDB",
                f"writes: realtime presences, by the event path ({m.presences_per_hit:.2f} "
                "per hit)",
                hits * m.presences_per_hit,
                DYNAMODB_WRITES,
            )
        )
    # by_host: the claim (eventually consistent) and the website (consistent), both small;
    # the aggregator's existence check: the website (consistent).
    lines.append(
        _line(
            "hits",
            "DynamoDB",
            "reads: cached website look-ups (event, aggregator)",
            website_lookups * 1.5 + exists_lookups * 1.0,
            DYNAMODB_READS,
        )
    )
    # A batch's rows go packed as JSON lines into records of up to 1,000 KiB, each billed
    # rounded up to 5 KB (data.warehouse.pack)
    batch_bytes = b["hits_per_batch"] * m.rows_per_hit * m.row_json_bytes
    billed_batch = math.ceil(batch_bytes / FIREHOSE_RECORD_BYTES) * FIREHOSE_RECORD_BYTES
    firehose_gb = batches * billed_batch / GIB * deployed.firehose_streams
    lines.append(
        _line(
            "hits",
            "Firehose",
            f"ingestion: {rows_month:,.0f} rows of {m.row_json_bytes:.0f} B, packed "
            f"{b['hits_per_batch'] * m.rows_per_hit:,.0f} a batch (5 KB rounding)",
            firehose_gb,
            FIREHOSE_INGESTION,
        )
    )
    lines.append(
        _line("hits", "Firehose", "conversion to Parquet", firehose_gb, FIREHOSE_CONVERSION)
    )
    landing_objects = SECONDS / FIREHOSE_BUFFER_S.value
    parts = compactions * min(ACTIVE_SITES.value, max(1.0, rate * 3600))  # site-days an hour
    site_days = merges * min(ACTIVE_SITES.value, max(1.0, rate * 86_400))
    lines.append(
        _line(
            "hits",
            "S3",
            "PUT/LIST: landing objects, parts, merged files and summaries, listings",
            # a part per site-day an hour; a merged file and 3 summaries per site-day a day;
            # 4 listings an hourly run, 3 a merge
            landing_objects + parts + 4 * site_days + 4 * compactions + 3 * merges,
            S3_PUTS,
        )
    )
    lines.append(
        _line(
            "hits",
            "S3",
            "GET/HEAD: landing objects, then parts and merged files by the daily merge",
            2 * (landing_objects + parts + site_days),
            S3_GETS,
        )
    )
    lines.append(
        _line(
            "hits",
            "S3",
            "storage: a month of compacted events",
            rows_month * m.parquet_bytes_per_row / GIB,
            S3_STORAGE,
        )
    )

    # API: reads and report creates.
    lines.append(
        _line(
            "api", "API Gateway", "REST: reads and report creates", api_requests, API_GATEWAY_REST
        )
    )
    lines.append(
        _line("api", "Lambda", "requests: reads, report creates", api_requests, LAMBDA_REQUESTS)
    )
    key_lookups = cached_lookups(api_requests, api_requests / SECONDS, m.key_cache_s)
    key_share = key_lookups / api_requests
    read_ms = (
        m.warm_list_us / 1000 * cpu_stretch(mem["ListReportsFunction"])
        + key_share * 2 * DYNAMODB_MS.value
        + m.requests_per_page * DYNAMODB_MS.value
    )
    create_mem = mem["CreateReportFunction"]
    create_ms = (
        (m.warm_create_us / 1000 + m.seo_ms) * cpu_stretch(create_mem)
        + FETCH_MS.value
        + key_share * 2 * DYNAMODB_MS.value
        + REPORT_ROUND_TRIPS.value * DYNAMODB_MS.value
    )
    for name, requests, ms in (
        ("ListReportsFunction", READS, read_ms),
        ("CreateReportFunction", REPORTS, create_ms),
    ):
        cold = requests * API_COLD_SHARE.value
        init = m.init_ms[name] * INIT_CPU_SHARE.value
        quantity = gb_seconds(requests, billed_ms(ms), mem[name]) + gb_seconds(
            cold, billed_ms(init), mem[name]
        )
        label = "reads" if name == "ListReportsFunction" else "report creates"
        lines.append(
            _line(
                "api",
                "Lambda",
                f"GB-s: {label} ({mem[name]} MB, {billed_ms(ms)} ms; "
                f"{cold:.0f} inits x {billed_ms(init)} ms)",
                quantity,
                duration[name],
            )
        )
    # A list page: every item read counted as a whole consistent read of a report's size
    # (index entries are smaller and Query rounds the page's sum, so this errs high).
    lines.append(
        _line(
            "api",
            "DynamoDB",
            f"reads: list pages ({m.items_per_page} items each)",
            READS * m.items_per_page * read_units(m.report_item_bytes, consistent=True),
            DYNAMODB_READS,
        )
    )
    lines.append(
        _line(
            "api",
            "DynamoDB",
            f"reads: API key look-ups ({key_share:.0%} miss the {m.key_cache_s:g} s cache)",
            key_lookups * 2 * read_units(200, consistent=False),
            DYNAMODB_READS,
        )
    )
    lines.append(
        _line(
            "api",
            "DynamoDB",
            "writes: report creates",
            REPORTS * (m.report_create_wru + ID_COUNTER_WRU.value),
            DYNAMODB_WRITES,
        )
    )

    # Storage, logs, fixed charges.
    stats_gb = m.stats_items_per_day * DAYS * (m.stats_item_bytes + ITEM_OVERHEAD_BYTES) / GIB
    reports_gb = REPORTS * m.report_storage_bytes / GIB
    lines.append(
        _line("hits", "DynamoDB", "storage: a month of stats counters", stats_gb, DYNAMODB_STORAGE)
    )
    lines.append(
        _line("api", "DynamoDB", "storage: a month of reports", reports_gb, DYNAMODB_STORAGE)
    )
    lines.append(
        _line(
            "fixed",
            "DynamoDB",
            "point-in-time recovery of that storage",
            stats_gb + reports_gb,
            DYNAMODB_PITR,
        )
    )

    def system(function: str, cold: bool = False) -> int:
        """Lambda's own lines per invocation: none when its SystemLogLevel drops INFO."""
        if deployed.functions[function].system_log_level != "INFO":
            return 0
        return platform_log_bytes(cold) - (platform_log_bytes() if cold else 0)

    hit_logs = (
        hits * (system("EventFunction") + m.event_log_bytes)
        + aggregations * system(aggregator)
        + batches * m.aggregate_log_bytes
        + (flushes * system("PresenceFunction") if flushes else 0.0)
        + script_invocations * system("ScriptFunction")
        + inits * sum(system(f, cold=True) for f in ("EventFunction", aggregator, "ScriptFunction"))
    ) / GIB
    api_logs = (
        api_requests * system("ListReportsFunction")
        + api_requests * API_COLD_SHARE.value * system("ListReportsFunction", cold=True)
    ) / GIB
    lines.append(_line("hits", "CloudWatch Logs", "ingestion: hit path", hit_logs, LOGS_INGESTION))
    # The hit API's access log: a line per request it serves (the script too, when it does)
    access_gb = 0.0
    if deployed.hit_api_access_log and option.event_api is not FUNCTION_URL:
        served = hits + script_loads  # the same API serves both
        line_bytes = access_log_bytes(deployed.hit_api_access_log_format)
        access_gb = served * line_bytes / GIB
        lines.append(
            _line(
                "hits",
                "CloudWatch Logs",
                f"ingestion: the hit API's access log ({line_bytes} bytes a request)",
                access_gb,
                LOGS_INGESTION,
            )
        )
    lines.append(_line("api", "CloudWatch Logs", "ingestion: API", api_logs, LOGS_INGESTION))
    retention = deployed.log_retention_days
    lines.append(
        _line(
            "fixed",
            "CloudWatch Logs",
            f"storage: logs kept {retention:g} days (LogRetentionDays; uncompressed, errs high)",
            (hit_logs + access_gb + api_logs) * retention / DAYS,
            LOGS_STORAGE,
        )
    )
    # X-Ray: the hit path's traces are sampled at its rate; everything else is slow enough
    # that the reservoir traces each request.
    hit_traced = deployed.functions["EventFunction"].traced or (
        deployed.hit_api == "rest" and deployed.api_stages_traced > 0
    )
    traces = hits * sampled_share(rate) if hit_traced else 0.0
    others = (
        (aggregator, aggregations),
        ("ScriptFunction", script_invocations),
        *((("PresenceFunction", flushes),) if flushes else ()),
        ("ListReportsFunction", api_requests),
        *((s.function, s.runs_a_month) for s in deployed.schedules),  # compaction's too
    )
    traces += sum(runs for function, runs in others if deployed.functions[function].traced)
    if traces:
        lines.append(
            _line(
                "hits",
                "X-Ray",
                f"traces recorded ({sampled_share(rate):.0%} of hits sampled: Tracing=Active)",
                traces,
                XRAY_RECORDED,
            )
        )
        lines.append(
            _line(
                "hits",
                "X-Ray",
                f"traces retrieved or scanned ({XRAY_SCANS_PER_TRACE.value:g} a trace)",
                traces * XRAY_SCANS_PER_TRACE.value,
                XRAY_SCANNED,
            )
        )
    headers = GATEWAY_HEADER_BYTES.value
    hit_egress = (
        hits * (m.event_response_bytes + headers)
        + script_invocations * (m.script_response_bytes + headers)
    ) / GIB
    # Reads as if each page carried whole reports (list pages show less): errs high.
    api_egress = (
        READS * m.items_per_page * m.report_item_bytes + REPORTS * m.report_item_bytes
    ) / GIB
    lines.append(
        _line(
            "hits",
            "Data transfer",
            "out: 202s and script.js",
            hit_egress,
            DATA_TRANSFER_OUT,
        )
    )
    lines.append(_line("api", "Data transfer", "out: API responses", api_egress, DATA_TRANSFER_OUT))
    quiet_queues = [q.queue for q in deployed.queue_sources if q.queue != "HitsQueue"]
    quiet = len(quiet_queues) * long_polls(0.0, IDLE_POLLERS.value, LONG_POLL_S.value, SECONDS)
    lines.append(
        _line(
            "fixed",
            "SQS",
            f"ReceiveMessage: empty long polls of {len(quiet_queues)} other queue(s) "
            f"({', '.join(quiet_queues)})",
            quiet,
            SQS_STANDARD,
        )
    )
    # Scheduled functions besides compaction and the drain (priced with the hit path)
    scheduled = [
        s for s in deployed.schedules if s.function not in ("CompactionFunction", aggregator)
    ]
    runs = sum(s.runs_a_month for s in scheduled)
    lines.append(
        _line(
            "fixed",
            "EventBridge Scheduler",
            f"invocations: {len(deployed.schedules)} schedules",
            sum(s.runs_a_month for s in deployed.schedules),
            SCHEDULER,
        )
    )
    lines.append(
        _line(
            "fixed",
            "Lambda",
            f"requests: {len(scheduled)} scheduled functions",
            runs,
            LAMBDA_REQUESTS,
        )
    )
    for s in scheduled:
        lines.append(
            _line(
                "fixed",
                "Lambda",
                f"GB-s: {s.function} ({s.expression}, {mem[s.function]} MB, "
                f"{SCHEDULED_RUN_MS.value:g} ms a run)",
                gb_seconds(s.runs_a_month, SCHEDULED_RUN_MS.value, mem[s.function]),
                duration[s.function],
            )
        )
    schedule_logs = sum(s.runs_a_month * system(s.function) for s in scheduled) / GIB
    lines.append(
        _line(
            "fixed", "CloudWatch Logs", "ingestion: scheduled runs", schedule_logs, LOGS_INGESTION
        )
    )
    if deployed.secrets:  # CostProfile=lean keeps the keyring in an SSM parameter
        lines.append(
            _line(
                "fixed",
                "Secrets Manager",
                f"secrets: {deployed.secrets} (the signing keyring)",
                deployed.secrets,
                SECRETS_MANAGER,
            )
        )
    keyring_reads = KEYRING_READERS.value * SECONDS / signing_keys.MAX_AGE_SECONDS
    every = (
        f"every {signing_keys.MAX_AGE_SECONDS / 60:g} min, by {KEYRING_READERS.value:g} containers"
    )
    if deployed.secrets:
        lines.append(
            _line(
                "fixed",
                "Secrets Manager",
                f"GetSecretValue: the keyring, {every}",
                keyring_reads,
                SECRETS_MANAGER_CALLS,
            )
        )
    else:  # CostProfile=lean: an SSM SecureString parameter (free), decrypted with aws/ssm
        lines.append(
            _line(
                "fixed",
                "KMS",
                f"requests: the keyring parameter's decrypts (aws/ssm), {every}",
                keyring_reads,
                KMS_REQUESTS,
            )
        )
    lines.append(
        _line(
            "fixed",
            "CloudWatch",
            f"metrics: {m.custom_metrics} EMF metrics the hit path emits every hour",
            m.custom_metrics,
            CUSTOM_METRICS,
        )
    )
    lines.append(
        _line(
            "fixed",
            "CloudWatch",
            f"alarms: {deployed.alarms} in template.yaml as deployed "
            f"({deployed.alarm_metrics} metrics watched)",
            deployed.alarm_metrics,
            ALARMS,
        )
    )
    lines.append(
        _line(
            "fixed",
            "KMS",
            f"keys: {deployed.kms_keys} customer managed",
            deployed.kms_keys,
            KMS_KEYS,
        )
    )
    lines += snapstart_lines(deployed)
    # a table with SSEEnabled uses the AWS-managed key (billed requests); one without, the
    # AWS-owned key (free)
    kms = deployed.tables_kms * KMS_REQUESTS_PER_TABLE_HOUR.value * SECONDS / 3600
    lines.append(
        _line(
            "fixed",
            "KMS",
            f"requests: {deployed.tables_kms} of {deployed.tables} tables' AWS-managed key (rough)",
            kms,
            KMS_REQUESTS,
        )
    )
    return lines


def snapstart_lines(deployed: Deployment) -> list[Line]:
    """Each SnapStart function's snapshot, cached all month (one version: template.yaml
    deletes the version a deploy replaces), and its restores."""
    lines = []
    for function in sorted(deployed.functions.values(), key=lambda f: f.name):
        if not function.snap_start:
            continue
        gb = function.memory_mb / 1024
        lines.append(
            _line(
                "fixed",
                "Lambda",
                f"SnapStart cache: {function.name} ({function.memory_mb} MB, all month)",
                gb * SECONDS,
                SNAPSTART_CACHE,
            )
        )
        lines.append(
            _line(
                "fixed",
                "Lambda",
                f"SnapStart restores: {function.name} ({SNAPSTART_RESTORES.value:g} a month)",
                gb * SNAPSTART_RESTORES.value,
                SNAPSTART_RESTORE,
            )
        )
    return lines


def total(lines: Iterable[Line], path: str | None = None) -> float:
    return sum(line.usd for line in lines if path is None or line.path == path)


def by_service(lines: Iterable[Line], path: str) -> dict[str, float]:
    found: dict[str, float] = {}
    for line in lines:
        if line.path == path:
            found[line.service] = found.get(line.service, 0.0) + line.usd
    return dict(sorted(found.items(), key=lambda item: -item[1]))
