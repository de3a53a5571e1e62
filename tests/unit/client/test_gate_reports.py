"""The CI gate's reports (sitelens_client.gate_reports): SARIF 2.1.0 against its required
structure, JUnit XML read with xml.etree, the summaries, and the GitHub action calling the
gate with options it has."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from typing import Any
from urllib.parse import urlsplit

import jsonschema
import pytest
import yaml

from sitelens_client import __main__ as cli
from sitelens_client import gate_reports
from sitelens_client.gate import Rules, judge
from sitelens_client.models import seo
from tests.unit.client.test_gate import ROOT, examples, rules

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


def test_sarif_paths_locate_a_page_at_a_relative_reference_keeping_its_url() -> None:
    data = examples()
    data["issues"][0]["pages"].append(
        {"url": "https://example.com:8443/a?x=1", "detail": "https://example.com/old (404)"}
    )
    verdict = judge(
        Rules(),
        seo.Audit.model_validate(data["audit"]),
        seo.AuditRun.model_validate(data["runs"][0]),
        [seo.AuditIssue.model_validate(issue) for issue in data["issues"]],
    )
    document = gate_reports.sarif(verdict, paths=True)
    sarif_valid(document)
    results = document["runs"][0]["results"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert uris == ["pages/example.com/", "pages/example.com:8443/a?x=1"]
    assert [r["properties"]["url"] for r in results] == [
        "https://example.com/",
        "https://example.com:8443/a?x=1",
    ]
    assert all(urlsplit(uri).scheme == "" for uri in uris)  # relative: no scheme read


FAKE_GH = """#!/bin/sh
# gh as the action's comment step calls it: the listing answers $FAKE_FOUND's ids whose
# marker matches, every other call is logged with the body it sends
case "$*" in
  *--jq*) printf '%s' "$FAKE_COMMENTS" | python3 -c "
import json, sys
want = sys.argv[1].split('startswith(\\"')[1].split('\\")')[0]
for c in json.load(sys.stdin):
    if c['body'].startswith(want):
        print(c['id'])" "$*" ;;
  *) echo "$*" >> "$FAKE_LOG"; body="${*##*body=@}"; cat "$body" >> "$FAKE_LOG" ;;
esac
"""


def _comment(tmp_path: Any, comments: list[dict[str, Any]], url: str) -> str:
    """Run the action's comment step with a fake `gh`; what it sent."""
    action = yaml.safe_load((ROOT / ".github/actions/sitelens-audit/action.yml").read_text())
    step = next(s for s in action["runs"]["steps"] if s.get("name", "").startswith("Comment"))
    (tmp_path / "bin").mkdir(exist_ok=True)
    gh = tmp_path / "bin" / "gh"
    gh.write_text(FAKE_GH)
    gh.chmod(0o755)
    (tmp_path / "summary.md").write_text("### Sitelens: passed\n")
    log = tmp_path / "gh.log"
    log.unlink(missing_ok=True)
    env = {
        "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
        "PR": "12",
        "GITHUB_REPOSITORY": "acme/site",
        "SUMMARY": str(tmp_path / "summary.md"),
        "URL": url,
        "FAKE_COMMENTS": json.dumps(comments),
        "FAKE_LOG": str(log),
    }
    subprocess.run(["bash", "-e", "-c", step["run"]], env=env, check=True)
    return log.read_text()


def test_the_pull_request_comment_is_posted_once_then_edited(tmp_path: Any) -> None:
    first = _comment(tmp_path, [{"id": 7, "body": "LGTM"}], "https://preview.example/")
    assert first.startswith("api repos/acme/site/issues/12/comments -F body=@")
    marker = first.splitlines()[1]
    assert marker.startswith("<!-- sitelens-audit:") and "### Sitelens: passed" in first
    mine = [{"id": 7, "body": "LGTM"}, {"id": 42, "body": f"{marker}\nold"}]
    again = _comment(tmp_path, mine, "https://preview.example/")
    assert again.startswith("api -X PATCH repos/acme/site/issues/comments/42 -F body=@")
    # another URL's audit in the same pull request keeps a comment of its own
    other = _comment(tmp_path, mine, "https://docs.preview.example/")
    assert other.startswith("api repos/acme/site/issues/12/comments")
