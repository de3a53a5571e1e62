"""The figures the code holds about the deployment, read from template.yaml: how long a
hit's message can travel (and so how long its dedupe records are kept), how long the
compaction's lease lasts, and how long S3 keeps each part of the warehouse."""

from __future__ import annotations

from typing import Any

from sitelens.analytics import counting
from sitelens.analytics.warehouse import compaction, layout, summaries
from sitelens.data import conversions, queues
from sitelens.local import template

RESOURCES = template.load()["Resources"]
PARAMETERS = template.load()["Parameters"]


def retention(queue: str) -> int:
    return int(RESOURCES[queue]["Properties"]["MessageRetentionPeriod"])


def test_dedupe_records_outlive_the_longest_path_of_a_hit():
    hits_queue = RESOURCES["HitsQueue"]["Properties"]
    dead_letter = hits_queue["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
    assert retention("HitsQueue") == queues.HITS_RETENTION_SECONDS
    assert retention(dead_letter) == queues.HITS_DEAD_LETTER_RETENTION_SECONDS
    # the queue, the dead-letter queue, and a redrive back to the queue to wait again
    longest = retention("HitsQueue") + retention(dead_letter) + retention("HitsQueue")
    assert longest == queues.HIT_LONGEST_PATH_SECONDS  # counting.COUNTABLE_SECONDS
    # a day more than that path: a hit counted at its end still finds every record
    for kept in (counting.RECORDS_KEPT_SECONDS, conversions.MARKER_KEPT_SECONDS):
        assert kept >= longest + 86_400


def test_the_compaction_s_lease_outlasts_its_longest_run():
    function = RESOURCES["CompactionFunction"]["Properties"]
    assert int(function["Timeout"]) < compaction.LEASE_SECONDS
    assert f"expires {compaction.LEASE_SECONDS} s after" in " ".join(
        template.DEFAULT_PATH.read_text().split()
    )
    [grant] = [
        statement
        for statement in function["Policies"][0]["Statement"]
        if "dynamodb:PutItem" in statement["Action"]
    ]
    assert grant["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"] == [
        f"lease#{compaction.LEASE}"
    ]


def rules() -> dict[str, Any]:
    found = RESOURCES["EventsBucket"]["Properties"]["LifecycleConfiguration"]["Rules"]
    return {rule["Prefix"]: rule["ExpirationInDays"] for rule in found}


def test_raw_events_are_kept_as_the_event_retention_parameter_says():
    assert PARAMETERS["EventRetentionDays"]["Default"] == 1096
    kept = rules()
    for prefix in (layout.COMPACTED, layout.PARTS, *summaries.COLUMNS, layout.PARKED):
        assert kept[prefix + "/"] == {"Ref": "EventRetentionDays"}, prefix
    # a deleted website's tombstone outlives every file that may still hold its rows
    assert kept[layout.DELETED + "/"] > kept[layout.ERRORS + "/"]
