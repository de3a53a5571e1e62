"""What the benchmarks found: `RESULTS` (filled by the tests), the targets of issue 5
checked against it, the printed tables (the targets, then the month's cost when
`test_zz_cost.py` ran) and build/bench.json."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "build" / "bench.json"
DOCS = ROOT / "docs" / "performance.md"
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
PER_PAGE = 10

# Keys named by the issue, filled by the tests; anything else is context.
RESULTS: dict[str, Any] = {}
# What the figures mean: settings, sizes, which variant was measured.
CONTEXT: dict[str, Any] = {}
NOTES: list[str] = []


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor()
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "nproc": os.cpu_count(),
        "cpu": cpu or platform.machine(),
        "machine": platform.machine(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "commit": commit,
    }


class Line:
    """One row of the table: a measured figure, what it is compared to, and the verdict."""

    def __init__(self, measure: str, value: str, target: str, status: str | None) -> None:
        self.measure, self.value, self.target, self.status = measure, value, target, status

    def as_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "value": self.value,
            "target": self.target,
            "status": self.status,
        }


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def lines(results: dict[str, Any], context: dict[str, Any]) -> list[Line]:
    """The table, target by target; a measure that did not run says so."""
    rows: list[Line] = []
    cold = results.get("cold_start_ms")
    if cold:
        cpu = context.get("cold_start_cpu_ms") or {}
        floor = cold["floor"]

        def versus_floor(name: str) -> str:
            text = f"{cold[name]:.0f} ms = {cold[name] / floor:.2f}x floor"
            if cpu:
                text += f" (cpu {cpu[name] / cpu['floor']:.2f}x)"
            return text

        ratio = cold["sitelens_max"] / floor
        rows.append(
            Line("cold start: floor (boto3 + dynamodb client)", f"{floor:.0f} ms", "", None)
        )
        profiles = results.get("cold_start_profiles")
        if profiles:
            rows += _cold_start_profile_lines(floor, profiles, context)
        else:  # a bench.json from before the profiles were told apart
            rows.append(
                Line(
                    f"cold start: sitelens max ({cold.get('sitelens_max_handler', '')})",
                    versus_floor("sitelens_max"),
                    "<= 1.40x floor",
                    _verdict(ratio <= 1.4),
                )
            )
        rows += [
            Line("cold start: sitelens median", versus_floor("sitelens_median"), "", None),
            Line("cold start: fastapi + mangum", versus_floor("fastapi_mangum"), "", None),
            Line("cold start: powertools resolver", versus_floor("powertools_resolver"), "", None),
        ]
    else:
        rows.append(Line("cold start", "not run", "<= 1.40x floor", None))
    warm = results.get("warm_us")
    if warm:
        for op in ("get", "list", "create"):
            ours, fastapi, powertools = (
                warm[f"sitelens_{op}"],
                warm[f"fastapi_mangum_{op}"],
                warm[f"powertools_{op}"],
            )
            ratio = ours / fastapi
            rows.append(
                Line(
                    f"warm {op}: sitelens / fastapi+mangum / powertools",
                    f"{ours:.0f} / {fastapi:.0f} / {powertools:.0f} us = {ratio:.2f}x fastapi",
                    "<= 0.50x fastapi",
                    _verdict(ratio <= 0.5),
                )
            )
    else:
        rows.append(Line("warm overhead", "not run", "<= 0.50x fastapi", None))
    reads = results.get("reads_per_page")
    if reads:
        plain = {k: v for k, v in reads.items() if ":search=" not in k}
        searched = {k: v for k, v in reads.items() if ":search=" in k}
        worst_key = max(plain, key=plain.__getitem__)
        over = [k for k, v in plain.items() if v > PER_PAGE + 1]
        rows.append(
            Line(
                f"reads per page, no search ({len(plain)} pages)",
                f"max {plain[worst_key]} items ({worst_key})"
                if over
                else f"max {plain[worst_key]}",
                f"<= per_page + 1 = {PER_PAGE + 1}",
                _verdict(not over),
            )
        )
        if searched:
            worst_search = max(searched, key=searched.__getitem__)
            rows.append(
                Line(
                    f"reads per page, search ({len(searched)} pages)",
                    f"max {searched[worst_search]} ({worst_search.split(':')[0]})",
                    "(a filter: not bounded)",
                    None,
                )
            )
    else:
        rows.append(Line("reads per page", "not run", f"<= {PER_PAGE + 1}", None))
    seo = results.get("seo_ms")
    if seo:
        # a container's first large page also forks the analysis worker (seo.md)
        first = (context.get("seo") or {}).get("first_large_page_ms") or {}
        for size in [z for z in ("50kb", "300kb", "1mb") if f"sitelens_{z}" in seo]:
            ours, baseline = seo[f"sitelens_{size}"], seo[f"baseline_{size}"]
            speedup = baseline / ours
            ok = speedup >= 3 and (size != "1mb" or ours < 100)
            target = ">= 3x faster" + (", < 100 ms" if size == "1mb" else "")
            forked = (
                f"; the first large page, with the fork: {first[size]:.1f} ms"
                if size in first
                else ""
            )
            rows.append(
                Line(
                    f"seo {size}: sitelens / beautifulsoup",
                    f"{ours:.1f} / {baseline:.1f} ms = {speedup:.1f}x faster{forked}",
                    target,
                    _verdict(ok),
                )
            )
    else:
        rows.append(Line("seo analysis", "not run", ">= 3x faster, 1 MB < 100 ms", None))
    ingest = results.get("ingest")
    if ingest:
        hits, writes = ingest["hits"], ingest["writes"]
        rows.append(
            Line(
                "ingest: hits / dynamodb writes",
                f"{hits} / {writes} = 1 write per {hits / max(writes, 1):.1f} hits",
                f"writes <= hits / 5 = {hits // 5}",
                _verdict(writes <= hits / 5),
            )
        )
        deployed, deployed_writes = (
            ingest["deployed_batch_size"],
            ingest["writes_at_deployed_batch"],
        )
        rows.append(
            Line(
                f"ingest: writes at the deployed batch size ({deployed})",
                f"{hits} / {deployed_writes} = "
                f"1 write per {hits / max(deployed_writes, 1):.1f} hits",
                f"writes <= hits / 5 = {hits // 5}",
                _verdict(deployed_writes <= hits / 5),
            )
        )
        rows.append(
            Line("ingest: throughput in-process", f"{ingest['hits_per_s']:.0f} hits/s", "", None)
        )
        if "presence_writes" in ingest:
            rows.append(
                Line(
                    "ingest: realtime presence writes (not counters)",
                    f"{ingest['presence_writes']} for {hits} hits",
                    "",
                    None,
                )
            )
    else:
        rows.append(Line("ingestion", "not run", "writes <= hits / 5", None))
    paths = results.get("query_paths")
    if paths:
        med = paths["median_ms"]
        rows.append(
            Line(
                f"query: counters / warehouse ({paths['events']} events, {paths['days']} d)",
                f"{med['counters']:.1f} / {med['warehouse']:.1f} ms (same question on the "
                f"warehouse {med['warehouse_same_question']:.1f} ms)",
                "counters well under 1 s",
                _verdict(med["counters"] < 1000),
            )
        )
        for total, found in paths["athena_scanned_30_days_of_one_site"].items():
            rows.append(
                Line(
                    f"query: athena scan, 30 days of one site at {int(total):,} events",
                    f"<= {found['bytes'] / 1e6:,.1f} MB (${found['usd']:.4f}); "
                    f"{paths['athena_bytes_per_row']} B/row, "
                    f"{len(paths['athena_columns_read'])} columns",
                    "",
                    None,
                )
            )
    else:
        rows.append(Line("query paths", "not run", "counters well under 1 s", None))
    found_warehouse = results.get("warehouse")
    if found_warehouse:
        rows += _warehouse_lines(found_warehouse)
    else:
        rows.append(Line("warehouse queries", "not run", "< 500 ms each", None))
    units = results.get("report_write_units")
    if units:
        before, after = units["before_all_projection"], units["after_slim_projection"]
        for kind in ("create", "settings_update"):
            rows.append(
                Line(
                    f"report {kind.replace('_', ' ')}: write units ({units['item_bytes']} B item)",
                    f"{after[kind]} (all-attribute indexes: {before[kind]})",
                    "",
                    None,
                )
            )
    found = results.get("cost")
    if found and "options" in found:
        targets = {
            (t["option"], int(t["hits"])): t["usd"]
            for t in found.get("targets") or [found["target"] | {"option": found["cheapest"]}]
        }
        for name, volumes in found["options"].items():
            for volume, figures in volumes.items():
                usd = targets.get((name, int(volume)))
                rows.append(
                    Line(
                        f"cost a month: {int(volume) / 1e6:g}M hits, {figures['title']}",
                        f"${figures['total_usd']:,.2f} (hit path "
                        f"${figures['totals_usd']['hits']:,.2f}, "
                        f"{figures['window_s']:g} s window)",
                        f"<= ${usd:,.2f}" if usd is not None else "",
                        _verdict(figures["total_usd"] <= usd) if usd is not None else None,
                    )
                )
    else:
        rows.append(Line("cost model", "not run", "", None))
    cpu = results.get("event_cpu_ms")
    if cpu:
        # the worst kind of agent, by its median: one sample's worst is the machine's noise
        kind, per = max(cpu["by_kind"].items(), key=lambda item: item[1]["median"])
        rows.append(
            Line(
                "event function: CPU per hit, agent never seen before (worst kind)",
                f"{per['median']:.2f} ms ({kind}); all kinds: median {cpu['median']:.2f}, "
                f"p99 {cpu['p99']:.2f}, slowest sample {cpu['worst']:.2f} ms; "
                f"a container's first agent {cpu['first_agent_ms']:.0f} ms",
                "< 2 ms",
                _verdict(per["median"] < 2),
            )
        )
    served = results.get("script_bytes")
    rows += _script_lines(served) if served else [Line("tracking script", "not run", "", None)]
    crawl = results.get("audit_crawl")
    rows += _audit_lines(crawl) if crawl else [Line("site audit crawl", "not run", "", None)]
    document = results.get("audit_pdf")
    if document:  # issue 45: an audit run's PDF (tests/bench/test_audit_pdf.py)
        rows.append(
            Line(
                f"audit PDF: build time for a {document['pages_audited']:,}-page audit",
                f"{document['seconds']:.2f} s ({document['document_pages']} pages, "
                f"{document['bytes'] / 1024:,.0f} KiB)",
                "< 10 s",
                _verdict(document["seconds"] < 10),
            )
        )
    parsed = results.get("hostile_sitemaps")
    if parsed:  # issue 41: sitemaps parsed in linear time (tests/fixtures/hostile_sitemaps.py)
        rows += [
            Line(f"hostile sitemap: {name}", f"{ms:.0f} ms CPU", "< 1 s", _verdict(ms < 1000))
            for name, ms in parsed.items()
        ]
    else:
        rows.append(Line("hostile sitemaps", "not run", "< 1 s each", None))
    accuracy = results.get("audit_checks_accuracy")
    if accuracy:  # issue 45: tests/bench/test_audit_checks_accuracy.py
        rows.append(_accuracy_line(accuracy))
    clusters = results.get("audit_clusters")
    if clusters:  # issue 45: tests/bench/test_audit_clusters.py
        rows.append(_clusters_line(clusters))
    render = results.get("audit_render")
    if render:  # issue 45: tests/bench/test_audit_render.py
        rows.append(
            Line(
                "site audit with `render: js`: rendered pages a second (make serve, Chromium)",
                f"{render['rendered_pages_per_s']:.2f} pages/s ({render['pages']} pages in "
                f"{render['seconds']:.1f} s)",
                "",
                None,
            )
        )
    # issue 46: tests/bench/test_imports.py and test_exports.py
    rows += _rate_lines("import of {name}", results.get("imports"))
    tools = results.get("mcp_tools")
    if tools:  # issue 47: tests/bench/test_mcp.py
        rows += [
            Line(
                f"MCP over make serve: {name}, p50 / p95",
                f"{found['p50_ms']:.0f} / {found['p95_ms']:.0f} ms ({found['calls']} calls)",
                "",
                None,
            )
            for name, found in tools.items()
        ]
    rows += _rate_lines("export of raw events as {name}", results.get("exports"))
    polite = results.get("audit_politeness")
    rows.append(
        _politeness_line(polite) if polite else Line("audit politeness", "not run", "", None)
    )
    client = results.get("client_overhead_us")  # issue 47: tests/bench/test_client.py
    if client:
        rows += [
            Line(
                f"python client / raw urllib3 over make serve: {name}, a call",
                f"{client[f'client_{name}'] / 1000:.1f} / {client[f'urllib3_{name}'] / 1000:.1f} "
                f"ms = +{client[f'overhead_{name}'] / 1000:.1f} ms",
                "",
                None,
            )
            for name in ("get", "list")
        ]
    found = results.get("usage")  # issue 47: tests/bench/test_usage.py
    if found:
        rows.append(_usage_line(found))
    journeys = results.get("journeys")  # issue 46: tests/bench/test_journeys.py
    if journeys:
        rows.append(_journeys_line(journeys))
    known = {
        "journeys",
        "cold_start_ms", "cold_start_handlers_ms", "cold_start_profiles", "warm_us",
        "reads_per_page", "script_bytes",
        "requests_per_page", "seo_ms", "ingest", "query_paths", "warehouse",
        "report_write_units", "cost", "bench_run", "event_cpu_ms", "audit_crawl",
        "audit_politeness", "audit_checks_accuracy",
        "hostile_sitemaps",
        "audit_pdf", "audit_clusters", "audit_render", "exports", "imports", "mcp_tools",
        "usage", "client_overhead_us",
    }  # fmt: skip
    for key in sorted(set(results) - known):  # a measure this module has no rows for yet
        rows.append(Line(key, _compact(results[key]), "", None))
    run = results.get("bench_run")
    if run:
        rows.append(
            Line(
                "make bench itself: wall time / peak RSS",
                f"{run['seconds'] / 60:.1f} min / {run['max_rss_mib']:,.0f} MiB (largest process)",
                "< 10 min, < 2 GiB",
                _verdict(run["seconds"] < 600 and run["max_rss_mib"] < 2048),
            )
        )
    return rows


def _cold_start_profile_lines(
    floor: float, profiles: dict[str, Any], context: dict[str, Any]
) -> list[Line]:
    """The slowest init a request meets under each CostProfile, judged against the target
    (a function SnapStart'd under a profile inits when a version is published, so no request
    pays it there: its restore is not measured here), then each SnapStart'd function's init."""
    cpu = context.get("cold_start_cpu_profiles") or {}
    cpu_floor = (context.get("cold_start_cpu_ms") or {}).get("floor")

    def versus_floor(ms: float, cpu_ms: float | None) -> str:
        text = f"{ms:.0f} ms = {ms / floor:.2f}x floor"
        if cpu_ms is not None and cpu_floor:
            text += f" (cpu {cpu_ms / cpu_floor:.2f}x)"
        return text

    rows = []
    inits: dict[str, tuple[float, float | None, list[str]]] = {}
    for profile, found in profiles.items():
        ms, worst = found["sitelens_max"], found["sitelens_max_handler"]
        restored = ", ".join(found["snapstart"])
        label = f"{worst}; {restored} SnapStart" if restored else worst
        rows.append(
            Line(
                f"cold start: sitelens max, {profile} profile ({label})",
                versus_floor(ms, (cpu.get(profile) or {}).get("sitelens_max")),
                "<= 1.40x floor",
                _verdict(ms / floor <= 1.4),
            )
        )
        for name, init_ms in found["snapstart"].items():
            init_cpu = ((cpu.get(profile) or {}).get("snapstart") or {}).get(name)
            inits.setdefault(name, (init_ms, init_cpu, []))[2].append(profile)
    for name, (init_ms, init_cpu, where) in inits.items():
        rows.append(
            Line(
                f"cold start: {name} init (paid at publish under {', '.join(where)}: "
                "SnapStart; its restore not measured)",
                versus_floor(init_ms, init_cpu),
                "",
                None,
            )
        )
    return rows


def _script_lines(found: dict[str, Any]) -> list[Line]:
    """The tracking script's files as GET /js/<file> sends them (tests/bench/test_script_size.py):
    bytes gzipped, with brotli, and as they are; the core against its target."""
    target = found["core_target_gzip"]
    rows = []
    for name, size in found["files"].items():
        core = name == "script.js"
        rows.append(
            Line(
                f"tracking script as sent: {name}" + (" (the core)" if core else ""),
                f"{size['gzip']:,} B gzip / {size['br']:,} B br / {size['identity']:,} B as is",
                f"< {target:,} B gzip" if core else "",
                _verdict(size["gzip"] < target) if core else None,
            )
        )
    return rows


def _audit_lines(found: dict[str, Any]) -> list[Line]:
    """Site audits under make serve (tests/bench/test_audit_crawl.py): speed, memory, and
    the cross-page checks against the generated site's known answers."""
    checks = found["checks"]
    wrong = {
        name: f"{c['false']} false, {c['missed']} missed"
        for name, c in checks.items()
        if c["false"] or c["missed"]
    }
    exact = not wrong
    return [
        Line(
            "site audit: pages crawled and analysed per second (make serve)",
            f"{found['pages_per_s']:.0f} pages/s ({found['pages']:,} pages in "
            f"{found['seconds']:.0f} s)",
            ">= 50 pages/s",
            _verdict(found["pages_per_s"] >= 50),
        ),
        Line(
            "site audit: peak memory, server (worker) / DynamoDB Local",
            f"{found['server_mib']:,.0f} / {found['children_mib']:,.0f} MiB",
            "",
            None,
        ),
        *_history_lines(found.get("history")),
        Line(
            f"site audit: precision / recall of {len(checks)} cross-page checks",
            f"min {found['precision_min']:.0%} / min {found['recall_min']:.0%}"
            + ("" if exact else f" ({_compact(wrong, 60)})"),
            "100% / 100%",
            _verdict(exact),
        ),
    ]


def _accuracy_line(found: dict[str, Any]) -> Line:
    """The structured-data, image and llms.txt checks against the generator's answers."""
    checks = found["checks"]
    wrong = {n: f"{c['false']} false, {c['missed']} missed" for n, c in checks.items()
             if c["false"] or c["missed"]}  # fmt: skip
    return Line(
        f"site audit: precision / recall of {len(checks)} structured-data, image and "
        f"llms.txt checks ({found['findings']} findings)",
        f"min {found['precision_min']:.0%} / min {found['recall_min']:.0%}"
        + (f" ({_compact(wrong, 60)})" if wrong else ""),
        "100% / 100%",
        _verdict(not wrong),
    )


def _rate_lines(measure: str, found: dict[str, Any] | None) -> list[Line]:
    """Rows a second of each format a file job read or wrote (DuckDB), none when not run."""
    return [
        Line(
            f"{measure.format(name=name)}: rows a second (DuckDB)",
            f"{one['rows_per_s']:,} rows/s ({one['rows']:,} rows, {one['mib']} MiB)",
            "",
            None,
        )
        for name, one in (found or {}).items()
    ]


def _clusters_line(found: dict[str, Any]) -> Line:
    """Near-duplicate clusters against the generator's (original, copy) pairs."""
    return Line(
        f"site audit: near-duplicate clusters, precision / recall of (original, copy) pairs "
        f"({found['clusters_planted']} planted, {found['pages']:,} pages)",
        f"{found['precision']:.0%} / {found['recall']:.0%}; originals told right "
        f"{found['originals_right']:.0%}",
        "100% / 100%",
        _verdict(not found["false"] and not found["missed"]),
    )


def _politeness_line(found: dict[str, Any]) -> Line:
    """Two audits of one host at once under make serve (tests/bench/test_audit_politeness.py):
    the host's fetch rate, from the site's own log, against one audit's."""
    configured = found["configured_rate"]
    return Line(
        "site audit: two audits of one host at once, the host's fetch rate (make serve)",
        f"{found['rate']:.1f} pages/s ({found['requests']} requests in {found['seconds']:.1f} s;"
        f" peak {found.get('peak_rate', 0):.1f})",
        f"<= {configured} pages/s (one audit's rate)",
        _verdict(found["rate"] <= configured),
    )


def _history_lines(history: dict[str, Any] | None) -> list[Line]:
    """The second run's diff against the site's recorded history of changes."""
    if history is None:
        return []
    wrong = "" if history["exact"] else f" ({_compact(history['wrong'], 60)})"
    return [
        Line(
            "site audit: second run's diff vs the recorded history, precision / recall",
            f"{history['precision']:.0%} / {history['recall']:.0%}, regression "
            f"{'yes' if history['regression'] else 'no'}{wrong}",
            "100% / 100%, as recorded",
            _verdict(history["exact"]),
        )
    ]


def _compact(value: Any, limit: int = 90) -> str:
    text = json.dumps(value, separators=(", ", ": "), default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _usage_line(found: dict[str, Any]) -> Line:
    """An agency's bill: the Queries of one answer, against the design's two a website, the
    workspaces' list and each account's website list; and what the bound reads."""
    designed = 2 * found["websites"] + found["workspaces"] + 2
    return Line(
        f"usage, an agency's bill: requests of one answer ({found['websites']} websites, "
        f"{found['workspaces']} workspaces)",
        f"{found['requests']:,} ({found['queries']:,} Queries, no Scan), "
        f"{found['seconds_moto']:.2f} s on moto; at the bound {found['requests_at_bound']:,}",
        f"{designed:,} Queries",
        _verdict(found["queries"] == designed and found["requests"] == found["queries"]),
    )


def _journeys_line(found: dict[str, Any]) -> Line:
    at = found["at_target"]
    how = f"derived from {at['from_events'][-1]:,}" if at["derived"] else "measured"
    each = ", ".join(f"{name.replace('_', ' ')} {ms / 1000:,.1f}" for name, ms in at["ms"].items())
    return Line(
        f"journeys at {found['target_events']:,} events ({how}): seconds",
        f"{each}; together {found['at_target_seconds']:,.1f} s, "
        f"peak {found['max_rss_mib']:,.0f} MiB",
        "< 20 s each, < 60 s, < 2 GiB",
        _verdict(found["fits"]),
    )


def _warehouse_lines(found: dict[str, Any]) -> list[Line]:
    rows = []
    target = found["target_ms"]
    size = (
        f"{found['big_site_events']:,} events of one site, {found['days']} d, "
        f"{found['sites'] - 1} other sites"
    )
    duck = found.get("engines", {}).get("duckdb", {})
    for name, value in found["median_ms"].items():
        scan = found["athena_scanned"][name]
        p95 = f" (p95 {duck[name]['p95_ms']:,.0f})" if name in duck else ""
        rows.append(
            Line(
                f"warehouse {name.replace('_', ' ')} ({size})",
                f"{value:,.0f} ms{p95}; Athena <= {scan['bytes'] / 1e6:,.1f} MB "
                f"(${scan['usd']:.4f})",
                f"< {target:.0f} ms",
                _verdict(value < target),
            )
        )
    return rows + _side_by_side_lines(found.get("side_by_side"))


def _side_by_side_lines(found: dict[str, Any] | None) -> list[Line]:
    """The questions over the last days on DuckDB and ClickHouse (chDB), p50 / p95."""
    if not found:
        return []
    duck, house = found["engines"]["duckdb"], found["engines"]["clickhouse"]
    load = found["clickhouse_load"]
    rows = [
        Line(
            f"warehouse on ClickHouse: load of {load['rows']:,} rows ({found['days']} d) "
            "from Parquet; peak RSS of the load, of the worker",
            f"{load['load_seconds']:,.1f} s; {load['peak_rss_mib']:,} MiB, "
            f"{load['worker_peak_rss_mib']:,} MiB",
            "",
            None,
        )
    ]
    for name in duck:
        rows.append(
            Line(
                f"warehouse {name.replace('_', ' ')} ({found['days']} d): DuckDB / ClickHouse "
                "p50, p95",
                f"{duck[name]['p50_ms']:,.0f}, {duck[name]['p95_ms']:,.0f} / "
                f"{house[name]['p50_ms']:,.0f}, {house[name]['p95_ms']:,.0f} ms",
                "the same answers",
                _verdict(found["answers_identical"]),
            )
        )
    return rows


def _usd(value: float) -> str:
    return f"${value:.4f}" if 0 < value < 0.01 else f"${value:,.2f}"


def _quantity(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:,.1f}" if value >= 1 else f"{value:.4f}"


PATH_TITLES = {"hits": "hit path", "api": "API", "fixed": "other"}


def cost_table(found: dict[str, Any]) -> list[str]:
    """The month's bill, line by line, with a subtotal per path and the total."""
    cells = [("component", "quantity", "unit price", "monthly")]
    for path, title in PATH_TITLES.items():
        for line in found["lines"]:
            if line["path"] == path:
                cells.append(
                    (
                        f"{title}: {line['service']} {line['component']}",
                        f"{_quantity(line['quantity'])} {line['unit']}",
                        line["unit_price"],
                        _usd(line["usd"]),
                    )
                )
        cells.append((f"{title}: subtotal", "", "", _usd(found["totals_usd"][path])))
    cells.append(("total", "", "", _usd(found["total_usd"])))
    widths = [max(len(row[i]) for row in cells) for i in range(4)]
    workload = found["workload"]
    out = [
        f"Cost a month: {workload['hits']:,} hits, {workload['reads']:,} API reads, "
        f"{workload['reports']:,} reports ({found['prices_as_of']} list prices, us-east-1)",
        "",
    ]
    for number, row in enumerate(cells):
        out.append(
            "  ".join(
                cell.rjust(width) if i in (1, 3) else cell.ljust(width)
                for i, (cell, width) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
        )
        if number == 0:
            out.append("  ".join("-" * width for width in widths))
    return out


def table(
    rows: list[Line], context: dict[str, Any], results: dict[str, Any] | None = None
) -> list[str]:
    widths = [
        max(len(getattr(row, attr)) for row in rows) for attr in ("measure", "value", "target")
    ]
    header = (
        f"Sitelens benchmarks: {context['nproc']} cores, {context['cpu']}, "
        f"Python {context['python']}, medians of {context.get('runs', '?')} runs"
    )
    out = [header, ""]
    titles = ("measure", "value", "target")
    out.append("  ".join(t.ljust(w) for t, w in zip(titles, widths, strict=True)) + "  status")
    out.append("  ".join("-" * w for w in widths) + "  ------")
    for row in rows:
        cells = (row.measure, row.value, row.target)
        text = "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))
        out.append(f"{text}  {row.status or ''}".rstrip())
    out.append("")
    out.append(
        "cold start: wall clock of a fresh process's imports and clients (its CPU time in "
        "brackets); warm, seo, ingest: CPU time of this process (seo: and of the worker "
        "process a page over 64 KiB is analysed in)"
    )
    found = (RESULTS if results is None else results).get("cost")
    if found:
        out += ["", *cost_table(found)]
    return out


def write(
    results: dict[str, Any], rows: list[Line], context: dict[str, Any], path: Path | None = None
) -> Path:
    """build/bench.json (build/bench-quick.json for a quick run, whose figures mean nothing)."""
    from tests.bench import timing

    output = path or (OUTPUT.with_name("bench-quick.json") if timing.QUICK else OUTPUT)
    output.parent.mkdir(parents=True, exist_ok=True)
    document = {
        **results,
        "targets": [row.as_dict() for row in rows],
        "context": {**context, "notes": NOTES},
    }
    output.write_text(json.dumps(document, indent=2, sort_keys=False, default=str) + "\n")
    return output


INTRO = """# Performance

What `make bench` measures (tests/bench), against the targets of issues 5 and 20: cold
starts and warm overhead of the handlers against FastAPI + Mangum and a Powertools
resolver, DynamoDB items read per list page, SEO analysis against BeautifulSoup,
ingestion (event function and aggregator on DynamoDB Local: write requests per hit and
CPU), `POST /api/v1/query` on a generated warehouse of 10 million events of one site over
30 days beside 100 smaller sites (`python -m tests.bench.generate ROOT` writes one), the
Athena bytes those queries would scan, and a month's cost of each deployment option at
1M and 100M hits.

Run it with `make bench` (about 10 minutes on 2 cores; `BENCH_RUNS=9` takes more runs).
It writes every figure to `build/bench.json` and the section below; nothing between the
markers is written by hand. `make test` runs each measure once at small sizes
(`tests/integration/test_bench_quick.py`, `BENCH_QUICK=1`), so the bench cannot rot.

"""


def _md_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell.replace("|", "/") for cell in row) + " |" for row in rows]
    return out


def _side_by_side_markdown(found: dict[str, Any] | None) -> list[str]:
    if not found:
        return []
    duck, house = found["engines"]["duckdb"], found["engines"]["clickhouse"]
    load = found["clickhouse_load"]
    return [
        "",
        f"### DuckDB and ClickHouse side by side ({found['days']} days, {load['rows']:,} rows)",
        "",
        f"The same questions over the last {found['days']} days, through the real handler, "
        f"{found['runs']} runs interleaved; ClickHouse is chDB in a worker process "
        "(tests/bench/chdb_worker.py) reading the deployed table `FINAL`, "
        f"{load['parts']} parts. Its rows went in by `INSERT ... SELECT` from those days' "
        f"compacted Parquet files in {load['load_seconds']:,.1f} s "
        f"({load['bytes_on_disk'] / 1e6:,.0f} MB stored), and the days' summaries, as the "
        f"ingest stores a closed day's, in {load.get('summarise_seconds', 0):,.1f} s; the "
        "worker's peak resident "
        f"memory {load['peak_rss_mib']:,} MiB after the load, {load['worker_peak_rss_mib']:,} "
        "MiB after the questions. Answers identical row by row: "
        f"{'yes' if found['answers_identical'] else 'no'}.",
        "",
        *_md_table(
            ("question", "DuckDB p50", "DuckDB p95", "ClickHouse p50", "ClickHouse p95"),
            [
                (
                    name.replace("_", " "),
                    *(
                        f"{engine[name][key]:,.0f} ms"
                        for engine in (duck, house)
                        for key in ("p50_ms", "p95_ms")
                    ),
                )
                for name in duck
            ],
        ),
    ]


def markdown(rows: list[Line], context: dict[str, Any], results: dict[str, Any]) -> str:
    """The docs' section: the last run's figures, as generated."""
    out = [
        f"Last run: {context.get('date', '')}, commit {context.get('commit', '')}, "
        f"{context.get('nproc')} cores ({context.get('cpu')}), Python "
        f"{context.get('python')}, medians of {context.get('runs')} runs. Timings on a "
        "shared machine are noisy.",
        "",
        *_md_table(
            ("measure", "value", "target", "status"),
            [(r.measure, r.value, r.target, r.status or "") for r in rows],
        ),
    ]
    found = results.get("warehouse")
    if found:
        p95s = found.get("engines", {}).get("duckdb", {})
        out += [
            "",
            f"### Queries on the warehouse ({found['big_site_events']:,} events of one site "
            f"over {found['days']} days, {found['sites'] - 1} other sites, "
            f"{found['files']:,} compacted files, {found['bytes_on_disk'] / 1e6:,.0f} MB)",
            "",
            "Medians of the real handler on DuckDB. Athena's bytes are derived, not measured: "
            "the compressed column chunks (`parquet_metadata()`) of the files of the relation "
            "the query reads (compaction's summaries where `summaries.plan` sends it, else the "
            "compacted events) of the site's days in range, for every column the rendered "
            "Athena SQL names (an upper bound).",
            "",
            *_md_table(
                ("question", "p50", "p95", "reads", "Athena scan", "of it hit_id", "cost a query"),
                [
                    (
                        name.replace("_", " "),
                        f"{ms:,.0f} ms",
                        f"{p95s.get(name, {}).get('p95_ms', ms):,.0f} ms",
                        found["athena_scanned"][name].get("relation", "events"),
                        f"{found['athena_scanned'][name]['bytes'] / 1e6:,.1f} MB",
                        f"{found['athena_scanned'][name]['hit_id_bytes'] / 1e6:,.1f} MB",
                        f"${found['athena_scanned'][name]['usd']:.4f}",
                    )
                    for name, ms in found["median_ms"].items()
                ],
            ),
            "",
            f"Generation: {found['generate_seconds']} s; {found['landing_rows']:,} rows "
            f"through landing ({found['landing_duplicates']:,} sent twice), then compacted.",
            *_side_by_side_markdown(found.get("side_by_side")),
        ]
    cost_found = results.get("cost")
    if cost_found and "options" in cost_found:
        out += ["", "### Cost a month", "", cost_found["prices"] + "."]
        volumes_priced = next(iter(cost_found["options"].values()))
        out += [
            "",
            "Totals a month by profile (CostProfile) and hit path: fixed + per hit (hit path "
            "and API) = total, without the always-free tier; the free tier's share of it apart.",
            "",
            *_md_table(
                ("profile: hit path", *(f"{int(v) / 1e6:g}M hits" for v in volumes_priced)),
                [
                    (
                        next(iter(volumes.values()))["title"],
                        *(
                            f"${f.get('fixed_usd', 0):,.2f} + "
                            f"${f.get('variable_usd', 0):,.2f} = **${f['total_usd']:,.2f}** "
                            f"(free tier -${f.get('free_tier_usd', 0):,.2f})"
                            for f in volumes.values()
                        ),
                    )
                    for volumes in cost_found["options"].values()
                ],
            ),
        ]
        for name, volumes in cost_found["options"].items():
            for volume, figures in volumes.items():
                if int(volume) not in (1_000_000, 100_000_000):
                    continue  # the lines at two sizes; the totals above at every size
                out += [
                    "",
                    f"**{figures['title']}, {int(volume):,} hits, {figures['window_s']:g} s "
                    f"batching window: ${figures['total_usd']:,.2f}** (hit path "
                    f"${figures['totals_usd']['hits']:,.2f}, API "
                    f"${figures['totals_usd']['api']:,.2f}, other "
                    f"${figures['totals_usd']['fixed']:,.2f})",
                    "",
                    *_md_table(
                        ("path", "component", "quantity", "unit price", "monthly"),
                        [
                            (
                                PATH_TITLES[line["path"]],
                                f"{line['service']}: {line['component']}",
                                f"{_quantity(line['quantity'])} {line['unit']}",
                                line["unit_price"],
                                _usd(line["usd"]),
                            )
                            for line in figures["lines"]
                            if line["usd"] >= 0.005 or name == cost_found["cheapest"]
                        ],
                    ),
                ]
        out += ["", "Assumptions:", ""]
        out += [
            f"- `{name}` = {found['value']:g}: {found['reason']}"
            for name, found in cost_found["assumptions"].items()
        ]
    notes = context.get("notes") or []
    if notes:
        out += ["", "Notes:", "", *(f"- {note}" for note in notes)]
    return "\n".join(out) + "\n"


def write_docs(section: str, path: Path = DOCS) -> Path:
    """Put `section` between the markers of `path` (created with the intro if missing)."""
    text = path.read_text() if path.exists() else INTRO + f"{BEGIN}\n{END}\n"
    if BEGIN not in text or END not in text:
        text = text.rstrip("\n") + f"\n\n{BEGIN}\n{END}\n"
    before, rest = text.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{before}{BEGIN}\n{section}{END}{after}")
    return path


def refresh_docs(source: Path = OUTPUT, path: Path = DOCS) -> Path:
    """docs/performance.md's section rendered again from a bench run's JSON (`make docs`):
    the docs' figures are that run's, whatever changed in how they are presented."""
    document = json.loads(source.read_text())
    context = document.pop("context")
    document.pop("targets", None)
    NOTES[:] = context.pop("notes", [])
    rows = lines(document, context)
    return write_docs(markdown(rows, {**context, "notes": NOTES}, document), path)


if __name__ == "__main__":
    print(f"written: {refresh_docs().relative_to(ROOT)} (from {OUTPUT.relative_to(ROOT)})")
