"""The Python client's overhead per call against raw urllib3: the same request
(`GET /api/v1/websites/{id}`, then a list page of 10) to make serve, through `Sitelens` and
through one urllib3 pool decoding the JSON, interleaved; medians of several batches.

The difference is what the client adds to a call: httpx's request building, the headers,
the retry bookkeeping and pydantic's validation of the answer into a model. make serve's
own time is in both, so the difference is measured, not the ratio.
"""

from __future__ import annotations

import json
import time
import uuid

import urllib3

from sitelens_client import Sitelens
from tests.bench import report, timing
from tests.e2e.test_local_server import start_server

KEY = "sl_bench_client_" + uuid.uuid4().hex
CALLS = 5 if timing.QUICK else 10  # a batch: one sample is a batch's mean per call
RUNS = 1 if timing.QUICK else max(15, timing.RUNS)  # the whole measure within ~10 s


def test_client_overhead() -> None:
    # the per-account limit off: the bench sends hundreds of requests a second
    server = start_server(
        SITELENS_DEV_API_KEY=KEY, SITELENS_ACCOUNT_RATE_LIMIT="0", POWERTOOLS_LOG_LEVEL="WARNING"
    )
    pool = urllib3.PoolManager(headers={"Authorization": f"Bearer {KEY}"})
    client = Sitelens(KEY, analytics_url=server.analytics, seo_url=server.seo)
    try:
        site = client.websites.create(domain=f"bench-{uuid.uuid4().hex[:8]}.example.net")
        for n in range(11):
            client.websites.create(domain=f"b{n}-{uuid.uuid4().hex[:8]}.example.net")
        one = f"{server.analytics}/api/v1/websites/{site.id}"
        page = f"{server.analytics}/api/v1/websites?per_page=10"

        def raw_get() -> float:
            return _batch(lambda: json.loads(pool.request("GET", one).data)["data"]["domain"])

        def client_get() -> float:
            return _batch(lambda: client.websites.get(site.id).domain)

        def raw_list() -> float:
            return _batch(lambda: json.loads(pool.request("GET", page).data)["data"][0]["id"])

        def client_list() -> float:
            return _batch(lambda: next(iter(client.websites.list(per_page=10))).id)

        for sample in (raw_get, client_get, raw_list, client_list):
            sample()  # warm: connections open, code paths taken
        with timing.own_garbage_only():
            medians = timing.interleaved(
                {"urllib3_get": raw_get, "client_get": client_get,
                 "urllib3_list": raw_list, "client_list": client_list},
                runs=RUNS,
            )  # fmt: skip
    finally:
        client.close()
        pool.clear()
        server.stop()
    found = {name: round(seconds * 1e6) for name, seconds in medians.items()}
    found["overhead_get"] = found["client_get"] - found["urllib3_get"]
    found["overhead_list"] = found["client_list"] - found["urllib3_list"]
    report.RESULTS["client_overhead_us"] = found
    report.CONTEXT["client_overhead"] = {
        "calls": f"{RUNS} batches of {CALLS} calls each, interleaved; the median batch's mean",
        "server": "make serve (its own DynamoDB Local), the per-account limit off",
    }
    assert all(value > 0 for key, value in found.items() if not key.startswith("overhead"))


def _batch(call: object) -> float:
    started = time.perf_counter()
    for _ in range(CALLS):
        call()  # type: ignore[operator]
    return (time.perf_counter() - started) / CALLS
