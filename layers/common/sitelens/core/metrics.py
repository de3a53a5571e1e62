"""What the pipeline loses, as CloudWatch metrics, and what it did, in one log line.

A loss (a name of `LOSSES`) is written in the embedded metric format: an EMF log line,
which CloudWatch turns into a metric without an API call, under its own name (with its
`reason` where it has several causes) and once more under its sum, the one name an alarm
in `template.yaml` reads (`SUMS`: a sum is a single metric, so an alarm on it bills one
alarm metric however many losses and reasons feed it). A line is written only when a loss
happens, so a quiet stack stores no metric at all. Every other count is a figure of
throughput (`FIGURES`: hits accepted, counted, rows delivered...): it goes into the one
`figures` log line a flush writes, never into a metric.

Counts are summed in memory (`count`) and written once per invocation (`flush`, run by the
handlers), so a batch of 5,000 hits writes a handful of lines, not 5,000.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
import time
from collections import Counter
from typing import Any

DEFAULT_NAMESPACE = "Sitelens"

# The sums the alarms read, each with its rule (template.yaml's <Sum>Alarm; docs/operations.md).
HITS_LOST = "HitsLost"  # hits refused or not counted, rows missing from answers: > 0 in 5 min
PIPELINE_FAULTS = "PipelineFaults"  # retried on their own: sustained for 15 minutes
NOTICES_LOST = "NoticesLost"  # an email, digest or webhook event not sent: > 0 in 5 minutes
REQUESTS_DEGRADED = "RequestsDegraded"  # refused, guessed at, made without: 15 minutes
AUDITS_SLOWED = "AuditsSlowed"  # crawl steps put off, never lost: for an hour
SUMS = (HITS_LOST, PIPELINE_FAULTS, NOTICES_LOST, REQUESTS_DEGRADED, AUDITS_SLOWED)

LOSSES: dict[str, str] = {
    "HitsThrottled": HITS_LOST,  # [reason] answered 429 by the event function
    "HitsParked": HITS_LOST,  # [reason] too old to count once: left in the dead-letter queue
    "RowsParked": HITS_LOST,  # [reason] warehouse rows that fit no schema: answers miss them
    "CounterChunksFailed": PIPELINE_FAULTS,  # their hits are retried
    "MessagesRetried": PIPELINE_FAULTS,  # [reason] handed back to SQS
    "RowsFailed": PIPELINE_FAULTS,  # refused by Firehose; their messages come back
    "PresencesFailed": PIPELINE_FAULTS,  # the realtime route undercounts
    "MonthRollupsFailed": PIPELINE_FAULTS,  # [reason] the run fails and is run again
    "ClickHouseHoursFailed": PIPELINE_FAULTS,  # the run fails; the hour is inserted again
    "DigestFailures": NOTICES_LOST,
    "WebhookEventsNotQueued": NOTICES_LOST,
    "TrafficAlertsLost": NOTICES_LOST,  # [reason]
    "DomainMoveEmailsLost": NOTICES_LOST,  # [reason]
    "AuditLogEntriesLost": REQUESTS_DEGRADED,  # a change made, its audit log entry not written
    "RequestsThrottled": REQUESTS_DEGRADED,  # [reason] a token bucket's 429
    "PasswordGuesses": REQUESTS_DEGRADED,  # [reason]
    "FieldDataUnavailable": REQUESTS_DEGRADED,  # [reason] a report or run without field data
    "AuditStepsPutOff": AUDITS_SLOWED,  # [reason]
    "AuditPagesNotRendered": REQUESTS_DEGRADED,  # [reason] render: js pages read from raw HTML
    # [tool] an MCP tool answered "Server error." inside a 200, where the APIs' 5xx alarms
    # cannot see it (edge.mcp_server)
    "McpToolFaults": REQUESTS_DEGRADED,
}

FIGURES = frozenset(
    {
        "HitsAccepted",
        "HitsBackfilled",  # past events queued (analytics.backfill): docs/backfill.md
        "ExportRows",  # rows of finished exports (analytics.exports)
        # [reason] shown in the export's status for the customer to fix, or retried by the
        # queue and then dead-lettered (JobsDeadLetterAlarm): docs/exports.md
        "ExportsFailed",
        "ImportRows",  # rows read by finished imports (analytics.imports)
        # [reason] shown in the import's status for the customer to fix, or retried by the
        # queue and then dead-lettered (JobsDeadLetterAlarm): docs/imports.md
        "ImportsFailed",
        "SearchConsoleRows",  # rows of finished Search Console imports
        "SearchConsoleQuotaWaits",  # a 429: the import resumes from its checkpoint, no loss
        # [reason] shown in the connection's last_import, or retried by the queue and then
        # dead-lettered (JobsDeadLetterAlarm): docs/search-console.md
        "SearchConsoleImportsFailed",
        "HitsExcluded",  # [reason] the website's rules: the user's choice, shown to them
        "CrawlsStored",  # [verification] crawl rows of access-log uploads (docs/crawlers.md)
        # [reason] access-log lines not counted (humans, other_hosts, malformed): the
        # upload's answer shows the caller each count, so no line is lost unseen
        "CrawlLinesSkipped",
        # [reason] a customer's role or bucket refused the log pull: theirs to fix, tried
        # again hourly, its checkpoint unmoved (docs/crawlers.md)
        "CrawlPullsRefused",
        "HitsDropped",  # [reason] the sender's setting (Plausible's format answers 202)
        "HitsCounted",
        "HitsDuplicate",
        "CountersCommitted",
        "RowsDelivered",
        "RowsCompacted",
        "RowsReingested",
        "CompactionsSkipped",
        "ClickHouseHoursInserted",  # landing hours inserted into ClickHouse
        "TrafficActivityFailed",  # made good by the next batch of the website's hits
        "MonthsNotNoted",  # made good by the next batch; a month not noted is read by days
        "MonthRollups",
        "DigestsSent",
        "TrafficAlerts",  # [reason]
        "WebhookDeliveriesFailed",  # [account] the customer's endpoint, the account is told
        "WebhookEndpointsDisabled",  # [account]
    }
)

Key = tuple[str, tuple[tuple[str, str], ...]]
_pending: Counter[Key] = Counter()
_lock = threading.Lock()  # the aggregator counts from its worker threads


def count(name: str, value: int = 1, **dimensions: str) -> None:
    """Add `value` to `name` (with `dimensions`, e.g. reason="bot") for the next flush; zero
    is not written. A name not in `FIGURES` is a loss (tests hold every name to one list)."""
    if value:
        with _lock:
            _pending[(name, tuple(sorted(dimensions.items())))] += value
            if name in LOSSES:
                _pending[(LOSSES[name], ())] += value


def flush(figures: bool = True) -> None:
    """Write the pending losses as EMF lines and the figures as one log line on stdout, then
    forget them. With `figures` False (the API path) the figures stay pending, a few sums,
    for the next full flush (make serve runs workers and APIs in one process)."""
    with _lock:
        found = {k: v for k, v in _pending.items() if figures or k[0] not in FIGURES}
        for key in found:
            del _pending[key]
    if not found:
        return
    lines = []
    done = {_label(name, dims): value for (name, dims), value in found.items() if name in FIGURES}
    if done:
        line = {"level": "INFO", "message": "figures", "figures": dict(sorted(done.items()))}
        lines.append(json.dumps(line, separators=(",", ":")) + "\n")
    losses = sorted((key, value) for key, value in found.items() if key[0] not in FIGURES)
    if losses:
        namespace = os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or DEFAULT_NAMESPACE
        service = os.environ.get("POWERTOOLS_SERVICE_NAME")  # Powertools' default dimension
        stamp = int(time.time() * 1000)
        for (name, dimensions), value in losses:
            shape = _shape(namespace, service, name, dimensions)
            emf = {**shape, "_aws": {**shape["_aws"], "Timestamp": stamp}, name: [float(value)]}
            lines.append(json.dumps(emf, separators=(",", ":")) + "\n")
    # One write of whole lines: Powertools' own `print` writes a line and its newline apart,
    # so a log line from another thread could land between them and make both unreadable
    # to CloudWatch (it did under make serve, where the workers are threads).
    if lines:
        sys.stdout.write("".join(lines))


def read(text: str) -> Counter[str]:
    """What flushes wrote in `text` (log output), summed by name, figures and losses alike
    (sums included): for tests and make serve's readers."""
    found: Counter[str] = Counter()
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("message") == "figures":
            for label, value in data["figures"].items():
                found[label.split("[")[0]] += int(value)
        elif isinstance(data, dict) and "_aws" in data:
            for metric in data["_aws"]["CloudWatchMetrics"][0]["Metrics"]:
                found[metric["Name"]] += int(sum(data[metric["Name"]]))
    return found


def _label(name: str, dimensions: tuple[tuple[str, str], ...]) -> str:
    """`HitsExcluded[reason=bot]`: a figure's name with its dimensions, as the log line keys it."""
    if not dimensions:
        return name
    return f"{name}[{','.join(f'{key}={value}' for key, value in dimensions)}]"


@functools.cache
def _shape(
    namespace: str, service: str | None, name: str, dimensions: tuple[tuple[str, str], ...]
) -> dict[str, Any]:
    """Powertools' EMF line for one metric and dimension set, made once per process: a
    flush only puts in the time and the value (making it anew cost about 10% of the event
    function's time under load)."""
    from aws_lambda_powertools.metrics import MetricUnit
    from aws_lambda_powertools.metrics.base import SingleMetric

    metric = SingleMetric(namespace=namespace, service=service)
    metric.add_metric(name=name, unit=MetricUnit.Count, value=0)
    for dimension, label in dimensions:
        metric.add_dimension(name=dimension, value=label)
    return metric.serialize_metric_set()
