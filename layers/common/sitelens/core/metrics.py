"""What the pipeline accepts, counts, throttles, retries and loses, as CloudWatch metrics.

Powertools Metrics in the embedded metric format: one JSON log line per metric and
dimension set, which CloudWatch turns into a metric without an API call. Counts are summed
in memory (`count`) and written once per invocation (`flush`, run by the handlers), so a
batch of 5,000 hits writes a handful of lines, not 5,000. Every name here has an alarm in
`template.yaml`; a loss that is only logged is not a record of it.

Names (namespace `POWERTOOLS_METRICS_NAMESPACE`, dimension `service`, and `reason` where
shown): HitsAccepted, HitsExcluded[reason], HitsDropped[reason], HitsThrottled[reason],
HitsCounted, HitsDuplicate, CountersCommitted, CounterChunksFailed, MessagesRetried[reason],
RowsDelivered, RowsFailed, RowsCompacted, RowsReingested, RowsParked[reason],
CompactionsSkipped, HitsParked[reason], PresencesFailed, DigestsSent, DigestFailures,
PasswordGuesses[reason], AuditStepsPutOff[reason].
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

_pending: Counter[tuple[str, tuple[tuple[str, str], ...]]] = Counter()
_lock = threading.Lock()  # the aggregator counts from its worker threads


def count(name: str, value: int = 1, **dimensions: str) -> None:
    """Add `value` to metric `name` (with `dimensions`, e.g. reason="bot") for the next
    flush; zero is not written."""
    if value:
        with _lock:
            _pending[(name, tuple(sorted(dimensions.items())))] += value


def flush() -> None:
    """Write every pending count as an EMF line on stdout, then forget them."""
    with _lock:
        found = dict(_pending)
        _pending.clear()
    if not found:
        return
    namespace = os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or DEFAULT_NAMESPACE
    service = os.environ.get("POWERTOOLS_SERVICE_NAME")  # Powertools' default dimension
    stamp = int(time.time() * 1000)
    lines = []
    for (name, dimensions), value in sorted(found.items()):
        shape = _shape(namespace, service, name, dimensions)
        line = {**shape, "_aws": {**shape["_aws"], "Timestamp": stamp}, name: [float(value)]}
        lines.append(json.dumps(line, separators=(",", ":")) + "\n")
    # One write of whole lines: Powertools' own `print` writes a line and its newline apart,
    # so a log line from another thread could land between them and make both unreadable
    # to CloudWatch (it did under make serve, where the workers are threads).
    sys.stdout.write("".join(lines))


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
