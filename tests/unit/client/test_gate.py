"""The CI gate (sitelens_client.gate, gate_run, gate_reports, __main__) on a fake transport
answering with openapi/seo.yaml's own examples: its rules, exit codes, summary, JUnit and
SARIF. The gate against make serve on a fixture site is tests/e2e/client/test_gate_served.py."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import re
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from sitelens_client import __main__ as cli
from sitelens_client import gate_reports, gate_run
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
    started = gate_run.start(sitelens, None, 3, None)
    assert started.run == 2 and api.seen.count("GET /api/v1/audits/3") >= 2


# The reports' structure

# SARIF 2.1.0's required structure, as far as the gate writes it (no maintained package
# ships the OASIS schema for use offline): what code scanning needs to show a result.
_MESSAGE = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}
_LEVEL = {"enum": ["none", "note", "warning", "error"]}
SARIF_REQUIRED = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "$schema": {"type": "string", "format": "uri"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name", "rules"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id", "shortDescription", "help"],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "shortDescription": _MESSAGE,
                                                "help": _MESSAGE,
                                                "helpUri": {"type": "string"},
                                                "defaultConfiguration": {
                                                    "type": "object",
                                                    "properties": {"level": _LEVEL},
                                                },
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["ruleId", "ruleIndex", "level", "message", "locations"],
                            "properties": {
                                "ruleId": {"type": "string"},
                                "ruleIndex": {"type": "integer", "minimum": 0},
                                "level": _LEVEL,
                                "message": _MESSAGE,
                                "locations": {
                                    "type": "array",
                                    "minItems": 1,
                                    "items": {
                                        "type": "object",
                                        "required": ["physicalLocation"],
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation"],
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "required": ["uri"],
                                                        "properties": {"uri": {"type": "string"}},
                                                    }
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}


def sarif_valid(document: dict[str, Any]) -> None:
    """Valid against SARIF_REQUIRED, each result's ruleIndex naming its rule."""
    import jsonschema

    jsonschema.validate(document, SARIF_REQUIRED)
    run = document["runs"][0]
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def three_issues() -> list[dict[str, Any]]:
    [high] = examples()["issues"]
    page = {"url": "https://example.com/a", "detail": "Title is 78 characters", "pageviews": None}
    medium = {**high, "code": "page_title", "severity": "medium", "title": "Title length",
              "fix": "Shorten it.", "learn_more": "https://developers.google.com/title",
              "count": 2, "pageviews": None,
              "pages": [page, {**page, "url": "https://example.com/b"}]}  # fmt: skip
    low = {**medium, "code": "dead_end", "severity": "low", "count": 1, "pages": [page]}
    return [low, medium, high]


def report_verdict(made: Rules):
    data = examples()
    run = seo.AuditRun.model_validate(data["runs"][0])
    audit = seo.Audit.model_validate(data["audit"])
    issues = [seo.AuditIssue.model_validate(issue) for issue in three_issues()]
    return judge(made, audit, run, issues)


def test_sarif_has_a_result_per_page_located_at_its_url_with_the_checks_help() -> None:

    document = gate_reports.sarif(report_verdict(rules(asserts=("dead_end=off",))))
    sarif_valid(document)
    run = document["runs"][0]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == [
        "broken_internal_link",
        "page_title",
    ]  # most severe first; the check turned off left out
    title_rule = run["tool"]["driver"]["rules"][1]
    assert title_rule["help"]["text"] == "Shorten it. https://developers.google.com/title"
    assert title_rule["helpUri"] == "https://developers.google.com/title"
    located = [
        (r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for r in run["results"]
    ]
    assert located == [
        ("broken_internal_link", "error", "https://example.com/"),  # high: error
        ("page_title", "warning", "https://example.com/a"),  # medium: warning
        ("page_title", "warning", "https://example.com/b"),
    ]
    assert "https://example.com/old (404)" in run["results"][0]["message"]["text"]
    fingerprints = {r["partialFingerprints"]["sitelensPage/v1"] for r in run["results"]}
    assert len(fingerprints) == 3


def test_sarif_levels_follow_assertions_and_a_low_check_is_a_note() -> None:

    document = gate_reports.sarif(report_verdict(rules(asserts=("page_title=error",))))
    sarif_valid(document)
    levels = {r["ruleId"]: r["level"] for r in document["runs"][0]["results"]}
    assert levels == {"broken_internal_link": "error", "page_title": "error", "dead_end": "note"}


def test_junit_has_a_testcase_per_check_failed_when_gated_with_its_pages() -> None:

    verdict = report_verdict(rules("severity>=medium", "score<90"))
    suites = ET.fromstring(gate_reports.junit(verdict))
    gate_suite, checks = suites.findall("testsuite")
    assert [(c.get("name"), c.find("failure") is not None) for c in gate_suite] == [
        ("score>=90", True),
        ("severity<medium", True),
    ]
    cases = {case.get("name"): case for case in checks.findall("testcase")}
    assert list(cases) == ["broken_internal_link", "page_title", "dead_end"]
    title = cases["page_title"].find("failure")
    assert title is not None and title.get("type") == "medium"
    assert "https://example.com/a" in (title.text or "") and "https://example.com/b" in (
        title.text or ""
    )
    low = cases["dead_end"]
    assert low.find("failure") is None and "https://example.com/a" in low.findtext("system-out", "")
    assert checks.get("tests") == "3" and checks.get("failures") == "2"
    assert suites.get("tests") == "5" and suites.get("failures") == "4"
    properties = {p.get("name"): p.get("value") for p in checks.iter("property")}
    assert properties == {"audit": "3", "run": "2", "score": "70", "regression": "True"}


def test_the_markdown_summary_lists_every_check_marked_and_the_text_one_the_gated() -> None:

    verdict = report_verdict(rules("severity>=high"))
    text = gate_reports.summary(verdict, "https://seo.example")
    assert "- [x] high broken_internal_link" in text and "page_title" not in text
    assert "Issues by severity (checks): 1 high, 1 medium, 1 low" in text
    markdown = gate_reports.summary(verdict, "https://seo.example", markdown=True)
    assert "**FAILED**" in markdown and "- [!] medium page_title" in markdown
    assert "1840 pageviews" in markdown  # traffic-weighted: the API's pageviews shown
    assert "  - <https://example.com/a> Title is 78 characters" in markdown  # a nested list


def test_the_markdown_summary_names_the_checks_new_and_fixed() -> None:
    markdown = gate_reports.summary(report_verdict(Rules()), "https://seo.example", markdown=True)
    assert "New: canonical_to_error (high, 3 pages); fixed: dead_end (low, 1 pages)" in markdown


def test_the_github_action_runs_the_gate_with_options_it_has() -> None:
    action = yaml.safe_load((ROOT / ".github/actions/sitelens-audit/action.yml").read_text())
    assert {"url", "api-key", "base-url", "fail-on", "comment"} <= set(action["inputs"])
    assert action["runs"]["using"] == "composite"
    steps = {step.get("name", step.get("uses")): step for step in action["runs"]["steps"]}
    script = steps["Run the gate"]["run"]
    assert "sitelens" in script and "audit run" in script
    options = set(re.findall(r"(--[a-z-]+)", script))
    help_text = _run_help()
    assert options and all(option in help_text for option in options), options
    uses = [step["uses"] for step in action["runs"]["steps"] if "uses" in step]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    assert "gh api" in steps["Comment the diff on the pull request"]["run"]


def _run_help() -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.main(["audit", "run", "--help"])
    return out.getvalue()
