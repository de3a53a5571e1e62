"""EMF lines: every count once, in whole lines that another thread's log line cannot split."""

from __future__ import annotations

import io
import json

import pytest

from sitelens.core import metrics


class Writes(io.StringIO):
    """stdout that keeps each write call apart."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def write(self, text: str) -> int:
        self.calls.append(text)
        return super().write(text)


def test_a_flush_writes_whole_lines_in_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    stdout = Writes()
    monkeypatch.setattr("sys.stdout", stdout)
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "sitelens")  # as template.yaml sets it
    metrics.count("HitsAccepted", 3)
    metrics.count("HitsExcluded", 2, reason="bot")
    metrics.count("HitsExcluded", 0, reason="ip")  # zero: not written
    metrics.flush()
    metrics.flush()  # nothing pending: nothing written
    assert len(stdout.calls) == 1 and stdout.calls[0].endswith("\n")
    lines = [json.loads(line) for line in stdout.calls[0].splitlines()]
    assert [(line.get("HitsAccepted"), line.get("HitsExcluded")) for line in lines] == [
        ([3.0], None),
        (None, [2.0]),
    ]
    assert lines[1]["reason"] == "bot"
    assert ["reason", "service"] in [
        sorted(d) for d in lines[1]["_aws"]["CloudWatchMetrics"][0]["Dimensions"]
    ]
