"""Cost: a month of 1,000,000 hits, 10,000 API reads and 1,000 reports at AWS list prices,
from this run's measurements (`tests/bench/cost.py` holds the prices, the assumptions and
the arithmetic).

Named to be collected last, so `report.RESULTS` already holds the other benchmarks'
figures: the ingest CPU per hit, warm overhead, SEO analysis time, cold starts, items read
per list page, report write units. A figure this run did not measure falls back to
`DEFAULTS` (a run of commit f9454dd), and a note says so.

What only this module measures: at 1,000,000 hits a month (0.38 a second) the aggregator's
batches are closed by its batching window long before they reach BatchSize, so the writes
per hit are counted here for batches of that size, on one day of the ingest benchmark's
traffic (its generator, the real event handler, the real `sum_counts`). The same day gives
the stats counters a day stores, the event handler's CPU per hit, its response and SQS
message sizes and what it logs; real aggregator invocations give the aggregator's log
bytes, and the script handler the size of GET /js/script.js.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import gc
import io
import json
import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import boto3
import pytest

from sitelens.analytics import counting
from sitelens.analytics.counting import sum_counts
from sitelens.analytics.hit import Hit
from sitelens.analytics.warehouse import rows
from sitelens.core import clock, config
from sitelens.core.log import logger
from sitelens.data import clients, queues, stats, warehouse
from sitelens.data import reports as stored_reports
from sitelens.data import websites as stored_websites
from sitelens.data.items import to_item
from sitelens.data.transactions import item_size
from sitelens.local import gateway
from tests.bench import cost, deployment, report, test_ingest, test_writes, timing
from tests.fixtures import deployed as sam

# Used only when this run did not measure the figure: a run of commit f9454dd (once in the README;
# 2 cores of an AMD EPYC, Python 3.11.7) and test_writes on the same tree.
DEFAULTS: dict[str, Any] = {
    "aggregate_cpu_ms": 1000 / 8545,  # ingest: 8,545 hits/s, both stages
    "full_batch_writes_per_hit": 1193 / 10_000,  # ingest at BatchSize 5,000
    "warm_get_us": 13.0,
    "warm_list_us": 78.0,
    "warm_create_us": 66.0,
    "seo_ms": 7.1,  # the 300 KB page
    "init_ms": 202.0,  # the slowest handler's cold start, for every function
    "items_per_page": 11,
    "requests_per_page": 2,
    "report_create_wru": 36.0,
    "report_item_bytes": 6113,
}
TIMED_HITS = 200 if timing.QUICK else 2_000  # events per sample of the event handler's CPU
# window-sized batches run through the real aggregator (its logs and metrics)
AGGREGATED_BATCHES = 3 if timing.QUICK else 20
# batching windows compared with the options'
WINDOWS_S = () if timing.QUICK else (0.0, 60.0, 300.0)
SAMPLE_HITS = 2_000 if timing.QUICK else 40_000  # hits per simulated month's batching
DAY = datetime(2026, 3, 3, tzinfo=UTC)


# ----------------------------------------------------------------------------- unit checks


def test_price_arithmetic() -> None:
    assert cost.API_GATEWAY_REST.cost(1_000_000) == pytest.approx(3.50)
    assert cost.API_GATEWAY_HTTP.cost(1_000_000) == pytest.approx(1.00)
    assert cost.FUNCTION_URL.cost(1_000_000) == 0
    assert cost.LAMBDA_REQUESTS.cost(2_500_000) == pytest.approx(0.50)
    assert cost.DYNAMODB_WRITES.cost(4_000_000) == pytest.approx(2.50)
    assert cost.KMS_REQUESTS.cost(20_000) == pytest.approx(0.06)
    assert cost.gb_seconds(1_000_000, 11, 512) == pytest.approx(5_500)
    assert cost.LAMBDA_ARM64_DURATION.cost(5_500) == pytest.approx(0.0733, abs=1e-4)
    assert cost.API_GATEWAY_REST.label() == "$3.50 / 1M requests"
    assert cost.DYNAMODB_WRITES.label() == "$0.625 / 1M WRU"
    assert cost.LAMBDA_ARM64_DURATION.label() == "$0.0000133334 / GB-s"


def test_model_arithmetic() -> None:
    assert (cost.billed_ms(0.2), cost.billed_ms(10.0), cost.billed_ms(10.01)) == (1, 10, 11)
    assert cost.cpu_stretch(1769) == pytest.approx(1.0)
    assert cost.cpu_stretch(3008) == pytest.approx(1.0)
    assert cost.cpu_stretch(512) == pytest.approx(1769 / 512)
    assert cost.cached_lookups(100, 0.0, 30) == 100  # nothing arrives within the TTL
    assert cost.cached_lookups(1000, 1.0, 9) == pytest.approx(100)
    assert (cost.read_units(6113, True), cost.read_units(200, False)) == (2, 0.5)
    assert (cost.write_units(1024), cost.write_units(1025), cost.write_units(10)) == (1, 2, 1)
    assert cost.window_batches(10, 0.0, 10, 5000) == [1] * 10
    sizes = cost.window_batches(100_000, 0.38, 10, 5000)
    assert sum(sizes) == 100_000 and max(sizes) <= 5000
    assert sum(sizes) / len(sizes) == pytest.approx(1 + 3.8, rel=0.02)
    assert cost.window_batches(10_000, 1000.0, 10, 5000) == [5000, 5000]
    polls = cost.long_polls(0.0, 5, 20, 3600)
    assert polls == 900  # idle: 5 pollers, one 20 s poll after another
    assert 900 < cost.long_polls(0.38, 5, 20, 3600) < 900 + 0.38 * 3600
    batches = cost.timed_batches(10_000, 1.0, 10, 5000)
    assert sum(map(len, batches)) == 10_000
    assert all(b[-1] - b[0] < 10 for b in batches)
    assert 10_000 / len(batches) == pytest.approx(1 + 10, rel=0.05)
    assert [len(b) for b in cost.timed_batches(10_000, 1e6, 10, 5000)] == [5000, 5000]
    # two batches of hits in one 10 s bucket, then one in the next
    found = cost.batching(
        [["a", "b"], ["a"]],
        [[0.0, 1.0], [12.0]],
        keys_of=set,
        key_bytes=lambda key: 1500,
        writers=1,
    )
    assert found["hits_per_batch"] == 1.5 and found["batches_per_hit"] == 2 / 3
    # 2 x (2 counters of 2 units + a marker), then 2 x (2 + 1)
    assert found["counter_wru_per_hit"] == pytest.approx((10 + 6) / 3)
    assert found["delivery_wru_per_hit"] == pytest.approx(2 / 3)  # one record a bucket
    assert found["delivery_rru_per_hit"] == pytest.approx(2 / 3)  # one Query a bucket
    assert found["writes_per_hit"] == pytest.approx(4 / 3)  # a transaction, a BatchWrite
    assert found["deletes_per_batch"] == 1.0


def test_options() -> None:
    """The options differ in the edge and the window; the cheapest is priced lowest."""
    inputs = _inputs_from({}, _toy_measured())
    totals = {
        option.name: cost.total(cost.bill(inputs, option, cost.HITS)) for option in cost.OPTIONS
    }
    assert min(totals, key=totals.__getitem__) == cost.CHEAPEST
    rest = cost.bill(inputs, cost.OPTIONS[0], cost.HITS)
    assert cost.total(rest) == pytest.approx(sum(cost.total(rest, p) for p in PATHS))
    event = next(line for line in rest if "POST /api/event" in line.component)
    assert (event.component, event.quantity) == ("REST: POST /api/event", cost.HITS)
    assert event.usd == pytest.approx(3.50)
    big = cost.bill(inputs, cost.OPTIONS[0], 100_000_000)
    event = next(line for line in big if "POST /api/event" in line.component)
    assert event.usd == pytest.approx(350.0)


# ----------------------------------------------------------------------------- the run

PATHS = ("hits", "api", "fixed")


def drain_periods() -> set[float]:
    """The periods of the deployments' hits drains (CostProfile=lean), in seconds."""
    return {
        cost.SECONDS / drain.runs_a_month
        for built in deployments().values()
        if (drain := cost.hits_drain(built))
    }


def _toy_measured() -> dict[str, Any]:
    return {
        "event_cpu_ms": 0.1,
        "batching": {
            cost.batching_key(volume, window): {
                "hits_per_batch": 4.8,
                "batches_per_hit": 1 / 4.8,
                "counters_per_hit": 10.0,
                "writes_per_hit": 1.0,
                "counter_wru_per_hit": 20.0 if window < 60 else 8.0,
                "delivery_wru_per_hit": 0.3,
                "delivery_rru_per_hit": 0.3,
                "wru_per_hit": 20.3,
                "write_rounds_per_batch": 3.0,
                "deletes_per_batch": 1.0,
            }
            for volume in cost.VOLUMES
            for window in {o.window_s for o in cost.OPTIONS} | drain_periods()
        },
        "message_bytes": 400,
        "stats_items_per_day": 1000.0,
        "stats_item_bytes": 120.0,
        "report_storage_bytes": 9000,
        "event_response_bytes": 150,
        "script_response_bytes": 3000,
        "event_log_bytes": 0.0,
        "aggregate_log_bytes": 450.0,
    }


HIT_PATHS = ("RestApi", "HttpApi")  # the HitPath parameter's values


def deployments() -> dict[str, deployment.Deployment]:
    """template.yaml as deployed under each CostProfile, HitPath and HitStream (the SAM
    translation): every option's, and the REST and HTTP APIs' with the queue."""
    translated = sam.translated()
    shapes = {(path, "queue") for path in HIT_PATHS} | {
        (o.hit_path, o.hit_stream) for o in cost.OPTIONS
    }
    return {
        cost.deployment_key(profile, path, stream): deployment.describe(
            deployment.resolve(
                translated, {"CostProfile": profile, "HitPath": path, "HitStream": stream}
            )
        )
        for profile in cost.PROFILES
        for path, stream in sorted(shapes)
    }


def _deployed(spec: dict[str, Any] | None = None) -> dict[str, Any]:
    """The aggregator's batching, as deployed by default."""
    found = deployments()[cost.deployment_key(cost.PROFILES[0], HIT_PATHS[0])]
    (hits,) = (q for q in found.queue_sources if q.queue == "HitsQueue")
    return {"batch_size": hits.batch_size, "window_s": hits.window_s}


def test_every_resource_type_is_priced(aws_env: None) -> None:
    """A resource type the model has no price for (nor a reason it costs nothing) fails the
    bench: whatever the template deploys, under any profile or hit path, is in the bill."""
    types = set().union(*(d.resource_types for d in deployments().values()))
    everything = deployment.resolve(sam.translated(), {"WafRateLimitPer5Min": "100"})
    types |= set(deployment.describe(everything).resource_types)
    known = set(cost.PRICED_RESOURCES) | set(cost.FREE_RESOURCES)
    assert not set(cost.PRICED_RESOURCES) & set(cost.FREE_RESOURCES)
    assert sorted(types - known) == []


def test_fixed_lines_follow_the_template(aws_env: None) -> None:
    """Alarms, queues, schedules, secrets and keys are counted from the deployed template."""
    found = deployments()
    standard = found[cost.deployment_key("standard", "RestApi")]
    translated = deployment.resolve(sam.translated(), {"CostProfile": "standard"})
    alarms = [r for r in translated["Resources"].values() if r["Type"] == "AWS::CloudWatch::Alarm"]
    assert standard.alarms == len(alarms) > 10
    assert {q.queue for q in standard.queue_sources} >= {"HitsQueue", "TasksQueue"}
    assert standard.secrets == 1 and standard.kms_keys == 1 and standard.firehose_streams == 1
    # lean: the keyring and the seal key in SSM parameters, the hits drained, not polled
    lean = found[cost.deployment_key("lean", "FunctionUrl")]
    assert (lean.secrets, lean.kms_keys, lean.tables_kms) == (0, 0, 0)
    assert "HitsQueue" not in {q.queue for q in lean.queue_sources}
    assert cost.hits_drain(lean) is not None
    assert lean.function_urls == {"EventFunction", "ScriptFunction"}  # hits and the script
    # an option that says the script comes through an API where the template gives it a URL
    wrong = dataclasses.replace(cost.OPTIONS[2], script_api=cost.API_GATEWAY_HTTP)
    with pytest.raises(ValueError, match="function URLs"):
        cost.bill(_inputs_from({}, _toy_measured()), wrong, cost.HITS, "lean")
    bill = cost.bill(_inputs_from({}, _toy_measured()), cost.OPTIONS[2], cost.HITS, "lean")
    assert not [line for line in bill if line.service in ("Secrets Manager",)]
    assert not [line for line in bill if "keys:" in line.component and line.quantity]
    lines = cost.bill(_inputs_from({}, _toy_measured()), cost.OPTIONS[0], cost.HITS, "standard")
    alarm_line = next(
        line for line in lines if line.service == "CloudWatch" and "alarms" in line.component
    )
    assert alarm_line.quantity == standard.alarm_metrics
    assert f"{len(standard.queue_sources) - 1} other queue(s)" in " ".join(
        line.component for line in lines
    )
    assert found[cost.deployment_key("standard", "HttpApi")].hit_api == "http"


def _measured_elsewhere(results: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The other benchmarks' figures this model uses, and where each came from."""
    found: dict[str, Any] = {}
    sources: dict[str, str] = {}

    def take(name: str, value: Any, source: str) -> None:
        found[name], sources[name] = value, source

    ingest = results.get("ingest")
    if ingest:
        take("aggregate_cpu_ms", 1000 / ingest["hits_per_s"], "test_ingest (both stages)")
        take(
            "full_batch_writes_per_hit",
            ingest["writes_at_deployed_batch"] / ingest["hits"],
            "test_ingest",
        )
    warm = results.get("warm_us")
    if warm:
        for op in ("get", "list", "create"):
            take(f"warm_{op}_us", warm[f"sitelens_{op}"], "test_warm")
    seo = results.get("seo_ms")
    page = f"{cost.REPORT_PAGE.value:.0f}kb"
    if seo and f"sitelens_{page}" in seo:
        take("seo_ms", seo[f"sitelens_{page}"], f"test_seo ({page})")
    handlers = results.get("cold_start_handlers_ms")
    if handlers:
        take("init_ms", dict(handlers), "test_cold_start (wall clock)")
    reads = results.get("reads_per_page")
    if reads:
        plain = [key for key in reads if ":search=" not in key]
        take("items_per_page", max(reads[key] for key in plain), "test_reads (max, no search)")
        requests = results.get("requests_per_page") or {}
        if requests:
            take(
                "requests_per_page",
                max(requests[key] for key in plain if key in requests),
                "test_reads (max, no search)",
            )
    units = results.get("report_write_units")
    if units:
        take("report_create_wru", units["after_slim_projection"]["create"], "test_writes")
        take("report_item_bytes", units["item_bytes"], "test_writes")
    return found, sources


def _inputs_from(results: dict[str, Any], measured_here: dict[str, Any]) -> cost.Inputs:
    """The model's inputs: template and code settings, this module's measurements, the
    other benchmarks' figures, and the defaults for whatever is missing."""
    deployed = _deployed()
    found, sources = _measured_elsewhere(results)
    for name, default in DEFAULTS.items():
        if name not in found:
            found[name], sources[name] = default, "default (run of f9454dd)"
    built = deployments()
    functions = {name for built_one in built.values() for name in built_one.functions}
    init = found.pop("init_ms")
    init_ms = {
        name: float(init.get(name, DEFAULTS["init_ms"])) if isinstance(init, dict) else init
        for name in functions
    }
    sources.update({name: "this module" for name in measured_here})
    return cost.Inputs(
        deployments=built,
        batch_size=deployed["batch_size"],
        window_s=deployed["window_s"],
        writers=counting.WORKERS,
        website_cache_s=stored_websites.CACHE_SECONDS,
        key_cache_s=config.DEFAULT_KEY_CACHE_SECONDS,
        init_ms=init_ms,
        **found,
        **measured_here,
        sources=sources,
    )


def _response_bytes(answer: dict[str, Any]) -> int:
    """A proxy response as sent: the body (API Gateway decodes a base64 one) and the
    handler's headers."""
    headers = answer.get("headers") or {}
    body = answer.get("body") or ""
    sent = len(base64.b64decode(body)) if answer.get("isBase64Encoded") else len(body.encode())
    return sent + sum(len(name) + len(value) + 4 for name, value in headers.items())


def _script_response_bytes() -> int:
    """GET /js/script.js through the real handler, for a browser without a cached copy (it
    asks for br, and gets it)."""
    script = gateway.load_module(report.ROOT / "functions/analytics/script/app.py").handler
    browser = {"Accept": "*/*", "Accept-Encoding": "gzip, deflate, br, zstd"}
    event = gateway.proxy_event(
        "GET", "/js/script.js", "/js/{file}", {"file": "script.js"}, headers=browser
    )
    answer = script(event, gateway.LambdaContext("ScriptFunction"))
    assert answer["statusCode"] == 200, answer
    return _response_bytes(answer)


def _message_bytes(message: dict[str, Any]) -> int:
    """What SQS bills of a message: its body and attributes (names, types, values)."""
    attributes = message.get("MessageAttributes") or {}
    return len(message["Body"].encode()) + sum(
        len(name) + len(value["DataType"]) + len(value["StringValue"].encode())
        for name, value in attributes.items()
    )


@contextmanager
def _captured_logs() -> Iterator[io.StringIO]:
    """The structured logger at the deployed level (INFO), written to a buffer."""
    handler = logger.registered_handler
    level = logger.log_level
    buffer = io.StringIO()
    saved = handler.setStream(buffer)  # type: ignore[attr-defined]
    logger.setLevel("INFO")
    try:
        yield buffer
    finally:
        logger.setLevel(level)
        handler.setStream(saved)  # type: ignore[attr-defined]


def _counter_bytes(website_id: int, day_totals: dict[Any, int]) -> Callable[[Any], int]:
    """A stats counter item's size as `stats.add` writes it (series, slot, value, count,
    the batch token)."""
    sizes: dict[Any, int] = {}

    def size(key: Any) -> int:
        if key not in sizes:
            _, name, value, day = key
            sizes[key] = item_size(
                {
                    "series": {"S": f"{website_id}#{name}"},
                    "slot": {"S": stats.slot(day, value)},
                    "count": {"N": str(day_totals.get(key, 1))},
                    "value": {"S": value},
                    "batch": {"S": "0" * 24},
                }
            )
        return sizes[key]

    return size


def _emf_metrics(printed: str) -> set[str]:
    """The custom metrics (name and dimensions) in EMF lines printed by the handlers."""
    found = set()
    for line in printed.splitlines():
        try:
            document = json.loads(line)
        except ValueError:
            continue
        for directive in (document.get("_aws") or {}).get("CloudWatchMetrics") or []:
            for metric in directive.get("Metrics") or []:
                for dimensions in directive.get("Dimensions") or [[]]:
                    values = ",".join(f"{d}={document.get(d)}" for d in dimensions)
                    found.add(f"{metric['Name']}[{values}]")
    return found


def _report_storage_bytes() -> int:
    """A report as test_writes builds it (`sample_report`), stored: the item and its index
    entries, each with DynamoDB's per-item overhead."""
    record = test_writes.sample_report()
    item = to_item(stored_reports.COLLECTION.with_index_keys(record))
    total = item_size(item) + cost.ITEM_OVERHEAD_BYTES
    for index in test_writes._indexes():
        if all(k["AttributeName"] in item for k in index["KeySchema"]):
            entry = test_writes._entry(item, index, "INCLUDE")
            total += item_size(entry) + cost.ITEM_OVERHEAD_BYTES
    return total


class PresenceWrites:
    """The event handler's DynamoDB client here: its realtime presence writes (`live#`
    items) are counted and answered at once, every other call goes to moto. They are priced
    per write (`presences_per_hit`); timing moto's CPU for them would bill it as Lambda's."""

    def __init__(self, dynamodb: Any) -> None:
        self._dynamodb = dynamodb
        self.writes = 0

    def update_item(self, **request: Any) -> dict[str, Any]:
        if str(request["Key"].get("series", {}).get("S", "")).startswith("live#"):
            self.writes += 1
            return {}
        return dict(self._dynamodb.update_item(**request))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._dynamodb, name)


def test_cost(aws_env: None, deployed_logging: None, monkeypatch: pytest.MonkeyPatch) -> None:
    test_ingest.unlimited_share(monkeypatch)
    deployed = _deployed()
    website_id = test_ingest._website()
    per_day = round(cost.HITS / cost.DAYS / (50 if timing.QUICK else 1))
    events = test_ingest.hit_events(per_day, seed=23)
    queue = test_ingest.QueueStub()
    presences = PresenceWrites(boto3.client("dynamodb"))
    stubs = {"sqs": queue, "dynamodb": presences}
    clients.reset()
    stored_websites.forget_all()
    with mock.patch("boto3.client", side_effect=lambda service, **_: stubs[service]):
        clients.client("sqs")
        clients.client("dynamodb")
    collect = gateway.load_module(test_ingest.EVENT_APP).handler
    aggregate = gateway.load_module(test_ingest.AGGREGATE_APP).handler
    collect_context = gateway.LambdaContext("EventFunction")

    # One day of hits, spread evenly over the day, through the real event handler.
    step = timedelta(seconds=86_400 / per_day)
    moment = [DAY]
    emitted = io.StringIO()  # EMF lines of both hit-path functions: every metric is billed
    try:
        with (
            mock.patch.object(clock, "now", lambda: moment[0]),
            _captured_logs() as logs,
            contextlib.redirect_stdout(emitted),
        ):
            answers = []
            for number, event in enumerate(events):
                moment[0] = DAY + number * step
                answers.append(collect(event, collect_context))
        assert {answer["statusCode"] for answer in answers} == {202}
        event_response_bytes = max(map(_response_bytes, answers))
        # every line a hit writes is billed: its log lines and its EMF lines alike
        event_log_bytes = (len(logs.getvalue().encode()) + len(emitted.getvalue())) / per_day
        messages = list(queue.messages)
        hits = [Hit.from_json(m["Body"]) for m in messages]
        presence_writes = presences.writes
        message_bytes = max(map(_message_bytes, messages))

        # The event handler's CPU per hit, medians of interleaved runs.
        def sample() -> float:
            queue.messages.clear()
            gc.collect()
            begin = time.process_time()
            for event in events[:TIMED_HITS]:
                collect(event, collect_context)
            return (time.process_time() - begin) * 1000 / TIMED_HITS

        with timing.own_garbage_only():
            event_cpu_ms = timing.interleaved({"event": sample})["event"]

        # Writes and reads per hit for the batches each window closes at each volume: the
        # day's hits in order, arriving as a Poisson stream at the volume's rate.
        day_totals = sum_counts(hits)
        key_bytes = _counter_bytes(website_id, day_totals)

        def keys_of(batch: list[Hit]) -> set[Any]:
            return set(sum_counts(batch))

        def figures(volume: int, window_s: float) -> dict[str, float]:
            count = SAMPLE_HITS if volume > cost.HITS else len(hits)
            times = cost.timed_batches(
                count, volume / cost.SECONDS, window_s, deployed["batch_size"]
            )
            found, start = [], 0
            for arrived in times:
                found.append([hits[(start + n) % len(hits)] for n in range(len(arrived))])
                start += len(arrived)
            return cost.batching(found, times, keys_of, key_bytes, counting.WORKERS)

        windows = sorted(
            {deployed["window_s"], *(o.window_s for o in cost.OPTIONS), *WINDOWS_S}
            | drain_periods()
        )
        by_window = {
            cost.batching_key(volume, window): figures(volume, window)
            for volume in cost.VOLUMES
            for window in windows
        }
        size = deployed["batch_size"]
        full = [hits[i : i + size] for i in range(0, len(hits), size)]
        full_times = [[0.0] * len(batch) for batch in full]
        by_window["full"] = cost.batching(full, full_times, keys_of, key_bytes, counting.WORKERS)
        rate = cost.HITS / cost.SECONDS

        # The real aggregator on window-sized batches: it counts, and what it logs.
        records = [queues.lambda_record(m, "HitsQueue") for m in messages]
        aggregate_context = gateway.LambdaContext("AggregatorFunction")
        sizes = cost.window_batches(len(hits), rate, deployed["window_s"], deployed["batch_size"])
        aggregate_emitted = io.StringIO()
        with _captured_logs() as logs, contextlib.redirect_stdout(aggregate_emitted):
            start = 0
            for size in sizes[:AGGREGATED_BATCHES]:
                answer = aggregate({"Records": records[start : start + size]}, aggregate_context)
                assert answer["batchItemFailures"] == []
                start += size
        aggregate_log_bytes = (
            len(logs.getvalue().encode()) + len(aggregate_emitted.getvalue())
        ) / AGGREGATED_BATCHES
        metrics = _emf_metrics(emitted.getvalue() + aggregate_emitted.getvalue())
    finally:
        stored_websites.forget_all()

    day_rows = [row for h in hits if (row := rows.row(h, h.id or "")) is not None]
    warehouse_found = report.RESULTS.get("warehouse") or {}
    measured_here = {
        "event_cpu_ms": event_cpu_ms,
        "batching": by_window,
        "pageviews_per_hit": sum(1 for h in hits if h.event_parts is None and h.engaged_ms is None)
        / len(hits),
        "presences_per_hit": presence_writes / len(hits),
        "rows_per_hit": sum(1 for h in hits if rows.row(h) is not None) / len(hits),
        # a row as the aggregator packs it into Firehose records (a JSON line)
        "row_json_bytes": sum(len(r.data) for r in warehouse.pack(day_rows)) / len(day_rows),
        "custom_metrics": len(metrics),
        "message_bytes": message_bytes,
        "stats_items_per_day": float(len(day_totals)),
        "stats_item_bytes": sum(map(key_bytes, day_totals)) / len(day_totals),
        "report_storage_bytes": _report_storage_bytes(),
        "event_response_bytes": event_response_bytes,
        "script_response_bytes": _script_response_bytes(),
        "event_log_bytes": event_log_bytes,
        "aggregate_log_bytes": aggregate_log_bytes,
    }
    if warehouse_found.get("parquet_bytes_per_row"):
        measured_here["parquet_bytes_per_row"] = warehouse_found["parquet_bytes_per_row"]
        measured_here["compaction_rows_per_s"] = warehouse_found["compaction_rows_per_s"]
        measured_here["hourly_rows_per_s"] = warehouse_found["hourly_rows_per_s"]
    inputs = _inputs_from(report.RESULTS, measured_here)
    if not warehouse_found.get("parquet_bytes_per_row"):
        inputs.sources["parquet_bytes_per_row"] = "default (test_warehouse did not run)"
        inputs.sources["compaction_rows_per_s"] = "default (test_warehouse did not run)"
        inputs.sources["hourly_rows_per_s"] = "default (test_warehouse did not run)"
    report.CONTEXT["cost_metrics_emitted"] = sorted(metrics)
    report.RESULTS["cost"] = summary(inputs, by_window)
    report.NOTES.extend(notes(report.RESULTS["cost"], inputs))


def lean_target(options: dict[str, dict[str, dict[str, Any]]], hits: int, usd: float) -> dict:
    """The lean profile's cheapest option at `hits` a month against its target."""
    name, figures = min(
        (
            (name, volumes[str(hits)])
            for name, volumes in options.items()
            if name.startswith("lean/")
        ),
        key=lambda found: found[1]["total_usd"],
    )
    total = figures["total_usd"]
    return {"usd": usd, "hits": hits, "option": name, "total_usd": total, "met": total <= usd}


def priced(inputs: cost.Inputs) -> dict[str, dict[str, dict[str, Any]]]:
    """Every profile and option at every volume: totals by path (fixed apart from per hit),
    the always-free tier apart, the lines, by service. Keyed "profile/option"."""
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for profile, option in ((p, o) for p in cost.PROFILES for o in cost.OPTIONS):
        for volume in cost.VOLUMES:
            lines = cost.bill(inputs, option, volume, profile)
            totals = {path: cost.total(lines, path) for path in PATHS}
            found.setdefault(f"{profile}/{option.name}", {})[str(volume)] = {
                "title": f"{profile}: {option.title}",
                "profile": profile,
                "window_s": cost.batch_window_s(inputs, option, profile),
                "total_usd": round(sum(totals.values()), 2),
                "fixed_usd": round(totals["fixed"], 2),
                "variable_usd": round(totals["hits"] + totals["api"], 2),
                "free_tier_usd": round(cost.free_tier(lines), 2),
                "totals_usd": {path: round(value, 4) for path, value in totals.items()},
                "hit_path_per_million_usd": round(totals["hits"] / volume * 1_000_000, 3),
                "by_service_usd": {
                    k: round(v, 4)
                    for k, v in cost.by_service([*lines], "hits").items()
                    | {
                        f"fixed: {k}": v for k, v in cost.by_service([*lines], "fixed").items()
                    }.items()
                },
                "lines": [line.as_dict() for line in lines],
            }
    return found


def summary(inputs: cost.Inputs, by_window: dict[str, dict[str, float]]) -> dict[str, Any]:
    options = priced(inputs)
    default = options[f"standard/{cost.OPTIONS[0].name}"][str(cost.HITS)]
    cheapest = options[f"lean/{cost.CHEAPEST}"][str(cost.HITS)]
    lines = cost.bill(inputs)
    services = cost.by_service(lines, "hits")
    top, top_usd = next(iter(services.items()))
    biggest = max((line for line in lines if line.path == "hits"), key=lambda line: line.usd)
    return {
        "prices": cost.PRICE_NOTE,
        "prices_as_of": cost.PRICES_AS_OF,
        "workload": {
            "hits": cost.HITS,
            "volumes": list(cost.VOLUMES),
            "reads": cost.READS,
            "reports": cost.REPORTS,
            "month_hours": cost.SECONDS / 3600,
        },
        "lines": default["lines"],
        "total_usd": default["total_usd"],
        "totals_usd": default["totals_usd"],
        "hit_path_per_million_usd": default["hit_path_per_million_usd"],
        "options": options,
        "cheapest": f"lean/{cost.CHEAPEST}",
        "target": {
            "usd": 5.0,
            "hits": cost.HITS,
            "option": f"lean/{cost.CHEAPEST}",
            "total_usd": cheapest["total_usd"],
            "met": cheapest["total_usd"] <= 5.0,
        },
        "targets": [lean_target(options, hits, usd) for hits, usd in cost.LEAN_TARGETS_USD.items()],
        "alternatives_total_usd": {
            name: figures[str(cost.HITS)]["total_usd"] for name, figures in options.items()
        },
        "alternatives_hit_path_usd": {
            name: round(figures[str(cost.HITS)]["totals_usd"]["hits"], 2)
            for name, figures in options.items()
        },
        "reference": {
            "serverless_website_analytics_per_million_usd": cost.SWA_USD_PER_MILLION_VIEWS,
            "source": cost.SWA_SOURCE,
        },
        "hit_path_by_service_usd": {k: round(v, 4) for k, v in services.items()},
        "dominant": {
            "service": top,
            "usd": round(top_usd, 2),
            "share_of_hit_path": round(top_usd / max(default["totals_usd"]["hits"], 1e-9), 3),
            "line": biggest.component,
            "line_usd": round(biggest.usd, 2),
        },
        "batching_by_window": {
            key: {k: round(v, 3) for k, v in figures.items()} for key, figures in by_window.items()
        },
        "inputs": {
            name: value
            for name, value in vars(inputs).items()
            if name not in ("sources", "batching")
        },
        "sources": inputs.sources,
        "assumptions": cost.assumptions(),
    }


def notes(found: dict[str, Any], inputs: cost.Inputs) -> list[str]:
    """What the cost tables mean, for the printed notes."""
    out = [f"cost: {found['prices']}"]
    defaulted = sorted(k for k, v in inputs.sources.items() if v.startswith("default"))
    if defaulted:
        out.append(f"cost: not measured in this run, defaults used: {', '.join(defaulted)}")
    top = found["dominant"]
    out.append(
        f"cost: the default hit path (${found['totals_usd']['hits']:.2f} a month at 1M) is led "
        f"by {top['service']}: ${top['usd']:.2f}; its dearest line is {top['line']}, "
        f"${top['line_usd']:.2f}"
    )
    for name, volumes in found["options"].items():
        figures = ", ".join(
            f"{int(volume) / 1e6:g}M: ${v['total_usd']:,.2f} (hit path "
            f"${v['totals_usd']['hits']:,.2f})"
            for volume, v in volumes.items()
        )
        title = next(iter(volumes.values()))["title"]
        window = next(iter(volumes.values()))["window_s"]
        out.append(f"cost: {title}, {window:g} s window: {figures}")
    for target in found["targets"]:
        out.append(
            f"cost: target <= ${target['usd']:.2f} a month for {target['hits'] / 1e6:g}M hits on "
            f"the cheapest lean option ({target['option']}): ${target['total_usd']:,.2f}, "
            + ("met" if target["met"] else "missed")
        )
    reference = found["reference"]["serverless_website_analytics_per_million_usd"]
    out.append(
        f"cost: serverless-website-analytics publishes ${reference:.2f} per million page views "
        f"(worst case, {cost.SWA_SOURCE.split(',')[1].strip()})"
    )
    return out


def test_defaults_cover_every_input() -> None:
    """Without any other benchmark's figures the model still prices a month, from DEFAULTS."""
    inputs = _inputs_from({}, _toy_measured())
    assert all(
        source.startswith("default") for name, source in inputs.sources.items() if name in DEFAULTS
    )
    lines = cost.bill(inputs)
    assert all(line.usd >= 0 and math.isfinite(line.usd) for line in lines)
    assert cost.total(lines) > cost.API_GATEWAY_REST.cost(cost.HITS)
