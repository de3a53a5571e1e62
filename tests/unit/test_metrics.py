"""Losses as EMF lines, figures in one log line: every count once, in whole lines that
another thread's log line cannot split; every loss under a sum that one alarm reads."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from sitelens.core import metrics
from sitelens.local import template

ROOT = Path(__file__).resolve().parents[2]
COUNTED = re.compile(r'metrics\.count\(\s*"([A-Za-z]+)"')


class Writes(io.StringIO):
    """stdout that keeps each write call apart."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def write(self, text: str) -> int:
        self.calls.append(text)
        return super().write(text)


def capture(monkeypatch: pytest.MonkeyPatch) -> Writes:
    """stdout from here on (in the test's body: pytest's capture resets it between phases)."""
    written = Writes()
    monkeypatch.setattr("sys.stdout", written)
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "sitelens")  # as template.yaml sets it
    return written


def test_a_flush_writes_whole_lines_in_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    stdout = capture(monkeypatch)
    metrics.count("HitsAccepted", 3)
    metrics.count("HitsExcluded", 2, reason="bot")
    metrics.count("HitsThrottled", 2, reason="site_share")
    metrics.count("HitsParked", 0, reason="too_old")  # zero: not written
    metrics.flush()
    metrics.flush()  # nothing pending: nothing written
    assert len(stdout.calls) == 1 and stdout.calls[0].endswith("\n")
    figures, *losses = [json.loads(line) for line in stdout.calls[0].splitlines()]
    assert figures["figures"] == {"HitsAccepted": 3, "HitsExcluded[reason=bot]": 2}
    # the loss under its own name and reason, and under the sum its alarm reads
    assert [(line.get("HitsLost"), line.get("HitsThrottled")) for line in losses] == [
        ([2.0], None),
        (None, [2.0]),
    ]
    assert losses[0]["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"]]
    assert losses[1]["reason"] == "site_share"
    assert metrics.read(stdout.getvalue()) == {
        "HitsAccepted": 3,
        "HitsExcluded": 2,
        "HitsThrottled": 2,
        "HitsLost": 2,
    }


def test_figures_alone_write_no_metric_and_the_hit_path_writes_no_line(monkeypatch) -> None:
    stdout = capture(monkeypatch)
    metrics.count("HitsCounted", 5000)
    metrics.count("RowsDelivered", 5000)
    metrics.flush()
    assert "_aws" not in stdout.getvalue()
    assert metrics.read(stdout.getvalue()) == {"HitsCounted": 5000, "RowsDelivered": 5000}
    metrics.count("HitsAccepted")
    before = len(stdout.calls)
    metrics.flush(figures=False)
    assert len(stdout.calls) == before  # a line per hit would bill log ingestion per hit
    metrics.flush()  # a worker's, in the same process (make serve): kept till then
    assert metrics.read(stdout.calls[-1]) == {"HitsAccepted": 1}


def counted_in_the_code() -> set[str]:
    sources = [*ROOT.glob("layers/common/sitelens/**/*.py"), *ROOT.glob("functions/**/*.py")]
    return {name for path in sources for name in COUNTED.findall(path.read_text())}


def test_every_name_counted_is_a_loss_or_a_figure_never_both():
    found = counted_in_the_code()
    assert {"HitsAccepted", "HitsThrottled", "RowsParked"} <= found  # the scan finds them
    assert found - metrics.FIGURES - set(metrics.LOSSES) == set()
    assert not metrics.FIGURES & set(metrics.LOSSES)
    assert set(metrics.LOSSES.values()) == set(metrics.SUMS)


def alarms() -> dict[str, dict]:
    resources = template.load()["Resources"]
    return {
        name: resource["Properties"]
        for name, resource in resources.items()
        if resource["Type"] == "AWS::CloudWatch::Alarm"
    }


def test_every_loss_is_alarmed_by_its_sum_one_alarm_one_metric():
    found = alarms()
    for total in metrics.SUMS:
        [alarm] = [a for a in found.values() if a.get("MetricName") == total]
        assert alarm["Namespace"] == {"Fn::Sub": "Sitelens/${AWS::StackName}"}
        assert alarm["Dimensions"] == [{"Name": "service", "Value": "sitelens"}]
        assert (alarm["ComparisonOperator"], alarm["Threshold"]) == ("GreaterThanThreshold", 0)
        assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]
    # no alarm reads a loss itself, or a query over its reasons (billed a metric a reason)
    for name, alarm in found.items():
        assert "Metrics" not in alarm, name
        assert alarm["MetricName"] not in metrics.LOSSES, name
        assert alarm["MetricName"] not in metrics.FIGURES, name


def test_the_default_stack_has_seventeen_alarms_and_the_lean_one_fifteen():
    spec = template.load()

    def alarms(**parameters: str) -> list[str]:
        return sorted(
            name
            for name, resource in spec["Resources"].items()
            if resource["Type"] == "AWS::CloudWatch::Alarm"
            and template.deployed(spec, resource, parameters)
        )

    # the render function's failures are the crawl worker's AuditPagesNotRendered
    # (RequestsDegradedAlarm): no alarm of its own
    assert len(alarms()) == 16, alarms()
    lean = alarms(CostProfile="lean", HitPath="FunctionUrl")
    assert len(lean) == 14, lean
