"""A customer's dead endpoint pages no one: the operator's webhook alarms watch our faults
only (events not queued, the dead-letter queue), never the per-account metrics of failed
deliveries and disabled endpoints."""

from __future__ import annotations

import json

from sitelens.core import metrics
from sitelens.local import template

CUSTOMERS = ("WebhookDeliveriesFailed", "WebhookEndpointsDisabled", "WebhookDeliveriesLost")


def alarms() -> dict[str, str]:
    resources = template.load()["Resources"]
    return {
        name: json.dumps(resource["Properties"])
        for name, resource in resources.items()
        if resource["Type"] == "AWS::CloudWatch::Alarm"
    }


def test_no_alarm_reads_a_customer_s_failing_endpoint():
    for name, properties in alarms().items():
        assert not any(metric in properties for metric in CUSTOMERS), name
    assert "WebhookDeliveriesLostAlarm" not in alarms()


def test_our_faults_keep_their_alarms():
    found = alarms()
    assert metrics.LOSSES["WebhookEventsNotQueued"] == "NoticesLost"
    assert '"MetricName": "NoticesLost"' in found["NoticesLostAlarm"]
    assert "JobsDeadLetterQueue" in found["JobsDeadLetterAlarm"]  # the webhook queue's
    for name in ("NoticesLostAlarm", "JobsDeadLetterAlarm"):
        assert '"AlarmActions": [{"Ref": "AlarmTopic"}]' in found[name]
