"""The tasks queue (template.yaml's TasksQueue): the low-volume work of system jobs, one
message a task, each naming its kind, so that one queue (one set of Lambda pollers, one
dead-letter queue) serves them all and one function routes each to its kind's code.

Kinds: `cleanup` (a deleted website's statistics to remove: `queues.send_cleanup`),
`digest` (an account's digest of a period: `digest_queue.send`), `export` (a website's
raw events as a file: `queues.send_export`), `import` (a file of a website's history to
read: `queues.send_import`) and `searchconsole` (a website's Search Console import:
`queues.send_search_console_import`), each sent to
`settings().task_queue_url`. A message's body is the kind's own JSON object with `kind`
beside its fields."""

from __future__ import annotations

import json
from typing import Any

CLEANUP = "cleanup"
DIGEST = "digest"
EXPORT = "export"  # a website's raw events to write as a file (analytics.exports)
IMPORT = "import"  # a file of a website's history to read (analytics.imports.jobs)
SEARCH_CONSOLE = "searchconsole"  # a website's Search Console rows to import (its checkpoint on)
KINDS = (CLEANUP, DIGEST, EXPORT, IMPORT, SEARCH_CONSOLE)
KIND_FIELD = "kind"


def body(kind: str, fields: dict[str, Any]) -> str:
    """The message body of a task of `kind` with `fields`."""
    if kind not in KINDS:
        raise ValueError(f"{kind!r} is not a kind of task")
    return json.dumps({KIND_FIELD: kind, **fields})


def kind_of(record: dict[str, Any]) -> str:
    """The kind a task's SQS record (in a Lambda event) names; "" for none or another."""
    try:
        data = json.loads(record.get("body") or "")
    except ValueError:
        return ""
    kind = data.get(KIND_FIELD) if isinstance(data, dict) else None
    return kind if kind in KINDS else ""
