"""The CI gate (sitelens_client.gate, gate_run, gate_reports, __main__) on a fake transport
answering with openapi/seo.yaml's own examples: its rules, the audit it runs, its exit codes
(the reports' structure: test_gate_reports.py). The gate against make serve on a fixture
site is tests/e2e/client/test_gate_served.py."""

from __future__ import annotations

import copy
import json
import time
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from sitelens_client import __main__ as cli
from sitelens_client import gate_run
from sitelens_client.gate import Rules, UsageError, judge
from sitelens_client.models import seo

ROOT = Path(__file__).resolve().parents[3]


@cache
def _examples() -> dict[str, Any]:
    paths = yaml.safe_load((ROOT / "openapi/seo.yaml").read_text())["paths"]

    def example(path: str) -> Any:
        answer = paths[path]["get"]["responses"]["200"]["content"]["application/json"]
        return answer["example"]["data"]

    return {
        "audit": example("/api/v1/audits")[0],
        "runs": example("/api/v1/audits/{id}/runs"),
        "issues": example("/api/v1/audits/{id}/issues"),
    }


def examples() -> dict[str, Any]:
    return copy.deepcopy(_examples())


class FakeApi:
    """The SEO API of one account: its audits (the document's example, run 1 done), runs
    started by POST .../runs and done after `polls` reads of the audit."""

    def __init__(self, *, audits: list[dict[str, Any]] | None = None, polls: int = 1) -> None:
        data = examples()
        self.audits = [data["audit"]] if audits is None else audits
        self.runs: list[dict[str, Any]] = data["runs"]  # run 2 regressed, as the document says
        self.issues: list[dict[str, Any]] = data["issues"]
        self.polls = polls
        self.seen: list[str] = []
        self.run_status = "done"

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path, method = request.url.path, request.method
        self.seen.append(f"{method} {path}")
        if path == "/api/v1/audits" and method == "GET":
            return self.ok(self.audits, meta={"next_cursor": None})
        if path == "/api/v1/audits" and method == "POST":
            fields = json.loads(request.content)
            audit = {**examples()["audit"], "id": 9, "url": fields["url"], "run": 1}
            audit.update(status="queued", score=None)
            self.audits.append(audit)
            self.runs = [{**self.runs[1], "status": "queued"}]
            return self.ok(audit, status=201)
        audit = self.audits[0] if len(self.audits) == 1 else self.audits[-1]
        if path.endswith("/runs") and method == "POST":
            audit.update(run=audit["run"] + 1, status="queued")
            return self.ok(audit, status=201)
        if path.endswith("/runs"):
            return self.ok([r for r in self.runs if r["run"] <= audit["run"]])
        if path.endswith("/issues"):
            return self.ok(self.issues)
        if method == "PATCH":
            audit.update(json.loads(request.content))
            return self.ok(audit)
        self.polls -= 1
        if self.polls < 0 and audit["status"] == "queued":
            audit["status"] = self.run_status
            for run in self.runs:
                if run["run"] == audit["run"]:
                    run["status"] = self.run_status
        return self.ok(audit)

    @staticmethod
    def ok(data: Any, status: int = 200, **extra: Any) -> httpx.Response:
        return httpx.Response(status, json={"data": data, "status": status, **extra})


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sitelens_client.gate_run.time.sleep", lambda seconds: None)


def gate(api: FakeApi, *args: str) -> int:
    http = httpx.Client(transport=httpx.MockTransport(api))
    return cli.main(["audit", "run", *args, "--key", "sl_key"], http=http)


def verdict_of(rules: Rules, **run_fields: Any):
    data = examples()
    run = seo.AuditRun.model_validate({**data["runs"][0], **run_fields})
    audit = seo.Audit.model_validate(data["audit"])
    issues = [seo.AuditIssue.model_validate(issue) for issue in data["issues"]]
    return judge(rules, audit, run, issues)


def rules(*fail_on: str, asserts: tuple[str, ...] = ()) -> Rules:
    made = Rules()
    for rule in fail_on:
        made.add_fail_on(rule)
    for assertion in asserts:
        made.add_assertion(assertion)
    return made


# The rules


def test_a_regressed_run_fails_the_regression_rule_with_the_apis_reasons() -> None:
    verdict = verdict_of(rules("regression"))
    assert not verdict.passed
    assert verdict.failures == [
        "the run regressed: The score fell by 11 points.; canonical_to_error (new, 3 pages).; "
        "broken_internal_link (1 page)."
    ]
    assert verdict_of(rules("regression"), regression=False).passed


def test_the_checks_a_run_regressed_on_are_failed_unless_ignored_or_asserted() -> None:
    # broken_internal_link persists, high, on one page more: the regression's check
    assert verdict_of(rules("regression")).levels == {"broken_internal_link": "error"}
    assert verdict_of(rules("regression"), regression=False).levels == {
        "broken_internal_link": "warn"
    }
    asserted = verdict_of(rules("regression", asserts=("broken_internal_link=warn",)))
    assert asserted.levels == {"broken_internal_link": "warn"}
    data = examples()
    data["audit"]["regression"]["ignore"] = ["broken_internal_link"]
    ignored = judge(
        rules("regression"),
        seo.Audit.model_validate(data["audit"]),
        seo.AuditRun.model_validate(data["runs"][0]),
        [seo.AuditIssue.model_validate(issue) for issue in data["issues"]],
    )
    assert ignored.levels == {"broken_internal_link": "warn"}


def test_the_score_budget_fails_below_it_only() -> None:
    assert verdict_of(rules("score<70")).passed  # the run scored 70
    assert verdict_of(rules("score<71")).failures == ["a score of 70, below 71"]
    assert verdict_of(rules("score<50"), score=None).failures == ["no score, below 50"]


def test_the_severity_rule_fails_on_an_issue_at_or_above_it() -> None:
    assert verdict_of(rules("severity>=high")).failures == [
        "1 checks of severity high or higher: broken_internal_link (1 pages)"
    ]
    assert verdict_of(rules("severity>=medium")).levels == {"broken_internal_link": "error"}
    assert verdict_of(Rules()).levels == {"broken_internal_link": "warn"}
    assert verdict_of(Rules()).passed


def test_an_assertion_overrules_the_severity_rule_and_error_fails_alone() -> None:
    quiet = verdict_of(rules("severity>=high", asserts=("broken_internal_link=warn",)))
    assert quiet.passed and quiet.levels == {"broken_internal_link": "warn"}
    off = verdict_of(rules(asserts=("broken_internal_link=off",)))
    assert off.passed and off.shown() == []
    failing = verdict_of(rules(asserts=("broken_internal_link=error", "page_title=error")))
    assert failing.failures == ["broken_internal_link lists 1 pages, asserted error"]
    assert failing.rule_results["page_title=error"] is None


@pytest.mark.parametrize(
    "fail_on", ["regresion", "score<0", "score<101", "score>5", "severity>=critical", ""]
)
def test_an_unreadable_rule_is_a_usage_error(fail_on: str) -> None:
    with pytest.raises(UsageError):
        Rules().add_fail_on(fail_on)


@pytest.mark.parametrize("assertion", ["page_title", "page_title=fatal", "=error"])
def test_an_unreadable_assertion_is_a_usage_error(assertion: str) -> None:
    with pytest.raises(UsageError):
        Rules().add_assertion(assertion)


# The command: exit codes, the audit it runs, the reports


def test_a_regressed_run_exits_1_and_writes_its_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeApi()
    code = gate(
        api, "https://example.com/", "--wait", "--fail-on", "regression",
        "--junit", str(tmp_path / "junit.xml"), "--sarif", str(tmp_path / "out.sarif"),
    )  # fmt: skip
    assert code == 1
    out = capsys.readouterr().out
    assert "run 2 of https://example.com/: score 70 (-11), 415 pages" in out
    assert "FAILED: the run regressed: The score fell by 11 points." in out
    assert "https://api.example.com/v1/share/audits/Zq3vH9kX2mB7cR1tL8wYpA" in out
    # the audit of the same URL is reused: a run started on it, not a new audit
    assert "POST /api/v1/audits/3/runs" in api.seen and "POST /api/v1/audits" not in api.seen
    suites = ET.parse(tmp_path / "junit.xml").getroot()
    assert suites.tag == "testsuites" and suites.get("failures") == "2"  # the rule, its check
    rule = next(suites.iter("testcase"))
    assert rule.get("name") == "regression" and rule.find("failure") is not None
    sarif = json.loads((tmp_path / "out.sarif").read_text())
    [result] = sarif["runs"][0]["results"]
    assert result["ruleId"] == "broken_internal_link" and result["level"] == "error"


def test_a_passing_run_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    api = FakeApi()
    api.runs[0].update(regression=False)
    assert gate(api, "https://example.com/", "--wait", "--fail-on", "regression") == 0
    assert "PASSED" in capsys.readouterr().out


def test_a_new_url_gets_a_new_audit_with_its_max_pages() -> None:
    api = FakeApi(audits=[])
    assert gate(api, "https://new.example/", "--wait", "--max-pages", "50") == 0
    assert "POST /api/v1/audits" in api.seen
    assert api.audits[0]["url"] == "https://new.example/" and api.audits[0]["run"] == 1


def test_an_audit_by_id_gets_its_max_pages_set_then_runs() -> None:
    api = FakeApi()
    assert gate(api, "--audit", "3", "--wait", "--max-pages", "50") == 0
    assert api.audits[0]["max_pages"] == 50
    assert api.seen.index("PATCH /api/v1/audits/3") < api.seen.index("POST /api/v1/audits/3/runs")


def test_a_failed_run_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    api = FakeApi()
    api.run_status = "failed"
    assert gate(api, "https://example.com/", "--wait") == 3
    assert "run 2 failed" in capsys.readouterr().err


def test_a_run_past_the_timeout_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    api = FakeApi(polls=10**6)
    assert gate(api, "https://example.com/", "--wait", "--timeout", "0") == 3
    assert "still queued at the timeout" in capsys.readouterr().err


def test_an_api_error_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"message": "Invalid API key.", "status": 401})

    http = httpx.Client(transport=httpx.MockTransport(refuse))
    assert cli.main(["audit", "run", "https://example.com/", "--key", "k"], http=http) == 3
    assert "Unauthorized" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["https://example.com/", "--wait", "--fail-on", "score<"],
        ["https://example.com/", "--wait", "--assert", "x=maybe"],
        ["https://example.com/", "--fail-on", "regression"],  # without --wait
        ["--wait"],  # neither URL nor --audit
        ["https://example.com/", "--audit", "3", "--wait"],  # both
        ["https://example.com/", "--wait", "--timeout", "soon"],
        ["https://example.com/", "--wait", "--max-pages", "0"],
    ],
)
def test_usage_errors_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    api = FakeApi()
    with pytest.raises(SystemExit) as exited:
        gate(api, *args)
    assert exited.value.code == 2 and api.seen == []
    assert "usage: sitelens" in capsys.readouterr().err


def test_no_key_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SITELENS_API_KEY", raising=False)
    with pytest.raises(SystemExit) as exited:
        cli.main(["audit", "run", "https://example.com/"])
    assert exited.value.code == 2


def test_a_run_under_way_is_waited_for_before_a_new_one() -> None:
    api = FakeApi(polls=1)
    api.audits[0]["status"] = "crawling"
    calls = iter(["crawling", "done"])

    real = api.__call__

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path == "/api/v1/audits/3":
            api.audits[0]["status"] = next(calls, api.audits[0]["status"])
        return real(request)

    http = httpx.Client(transport=httpx.MockTransport(handler))
    sitelens = gate_run.Sitelens("k", http=http)
    started = gate_run.start(sitelens, None, 3, None, deadline=time.monotonic() + 60)
    assert started.run == 2 and api.seen.count("GET /api/v1/audits/3") >= 2


def test_a_report_that_cannot_be_written_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeApi()
    code = gate(api, "https://example.com/", "--wait", "--sarif", str(tmp_path / "no/x.sarif"))
    assert code == 2 and "No such file or directory" in capsys.readouterr().err


def test_a_crash_exits_3_not_1_which_means_a_failed_gate(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object) -> None:
        raise KeyError("surprise")

    monkeypatch.setattr("sitelens_client.__main__.judge", broken)
    assert gate(FakeApi(), "https://example.com/", "--wait") == 3
    assert "KeyError" in capsys.readouterr().err
