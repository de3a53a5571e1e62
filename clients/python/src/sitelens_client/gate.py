"""The CI gate's rules: what `--fail-on` and `--assert` ask of an audit's finished run, and
the verdict on one (docs/ci-gate.md). Running the audit is `gate_run.py`; the reports it
writes are `gate_reports.py`; the command line is `__main__.py`.

The rules follow Lighthouse CI's assertions: a budget on the score, and a level per check,
`error` (fails the gate), `warn` (shown, never failing) or `off` (left out of every report).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sitelens_client.models import seo

SEVERITIES = ("low", "medium", "high")  # least to most severe
LEVELS = ("error", "warn", "off")
# SARIF's level of a check that no assertion sets: from its severity
SARIF_LEVEL = {"high": "error", "medium": "warning", "low": "note"}

_SCORE = re.compile(r"score\s*<\s*(\d{1,3})")
_SEVERITY = re.compile(r"severity\s*>=\s*(\w+)")
_ASSERTION = re.compile(r"([a-z][a-z0-9_]*)\s*=\s*(\w+)")


class UsageError(ValueError):
    """A rule the gate cannot read (exit code 2)."""


@dataclass
class Rules:
    regression: bool = False  # the run regressed, as the API judges it (docs/audits.md)
    min_score: int | None = None  # the run scored below this
    severity: str | None = None  # an issue of this severity or a higher one is listed
    checks: dict[str, str] = field(default_factory=dict)  # issue code -> error, warn, off

    def add_fail_on(self, text: str) -> None:
        """One `--fail-on`: `regression`, `score<N` or `severity>=high|medium|low`."""
        rule = text.strip().lower()
        if rule == "regression":
            self.regression = True
        elif score := _SCORE.fullmatch(rule):
            self.min_score = int(score.group(1))
            if not 0 < self.min_score <= 100:
                raise UsageError(f"--fail-on {text!r}: a score is 1-100")
        elif severity := _SEVERITY.fullmatch(rule):
            if severity.group(1) not in SEVERITIES:
                raise UsageError(f"--fail-on {text!r}: a severity is high, medium or low")
            self.severity = severity.group(1)
        else:
            raise UsageError(
                f"--fail-on {text!r}: expected regression, score<N or severity>=high|medium|low"
            )

    def add_assertion(self, text: str) -> None:
        """One `--assert CHECK=LEVEL`, as Lighthouse CI's `"audit-id": "error"`."""
        assertion = _ASSERTION.fullmatch(text.strip())
        if not assertion or assertion.group(2) not in LEVELS:
            raise UsageError(f"--assert {text!r}: expected CHECK=error|warn|off")
        self.checks[assertion.group(1)] = assertion.group(2)

    def level(self, issue: seo.AuditIssue) -> str:
        """The issue's level in the gate: `error` fails it, `warn` is shown, `off` is not."""
        if issue.code in self.checks:
            return self.checks[issue.code]
        if self.severity and _rank(issue.severity) >= _rank(self.severity):
            return "error"
        return "warn"

    @property
    def any(self) -> bool:
        return (
            self.regression
            or self.min_score is not None
            or self.severity is not None
            or any(level == "error" for level in self.checks.values())
        )


@dataclass(frozen=True)
class Verdict:
    """A finished run judged: `failures` says, a sentence each, why the gate fails (none: it
    passes); `levels` is each listed issue's level (muted issues are not listed)."""

    audit: seo.Audit
    run: seo.AuditRun
    issues: list[seo.AuditIssue]
    levels: dict[str, str]
    failures: list[str]
    rule_results: dict[str, str | None]  # each rule asked -> why it failed, or None

    @property
    def passed(self) -> bool:
        return not self.failures

    def shown(self) -> list[seo.AuditIssue]:
        """The issues not turned off, most severe first, then by pageviews and pages."""
        kept = [issue for issue in self.issues if self.levels[issue.code] != "off"]
        return sorted(
            kept, key=lambda i: (-_rank(i.severity), -(i.pageviews or 0), -i.count, i.code)
        )

    def sarif_level(self, issue: seo.AuditIssue) -> str:
        """SARIF's level: an asserted check's (`error`, `warning`), else its severity's."""
        asserted = self.levels[issue.code]
        if asserted == "error":
            return "error"
        return SARIF_LEVEL.get(issue.severity, "warning")


def judge(
    rules: Rules, audit: seo.Audit, run: seo.AuditRun, issues: list[seo.AuditIssue]
) -> Verdict:
    """The verdict of the rules on a finished run and its issues."""
    listed = [issue for issue in issues if not getattr(issue, "muted", False)]
    levels = {issue.code: rules.level(issue) for issue in listed}
    if rules.regression and run.regression:  # the checks it regressed on are failed too
        for code in regressed(audit, run) & set(levels):
            if code not in rules.checks:
                levels[code] = "error"
    results: dict[str, str | None] = {}
    if rules.regression:
        reasons = "; ".join(run.regression_reasons or []) or "the API flagged it"
        results["regression"] = f"the run regressed: {reasons}" if run.regression else None
    if rules.min_score is not None:
        below = run.score is None or run.score < rules.min_score
        scored = "no score" if run.score is None else f"a score of {run.score}"
        results[f"score>={rules.min_score}"] = (
            f"{scored}, below {rules.min_score}" if below else None
        )
    if rules.severity:
        # a check asserted warn or off is not failed by its severity (an assertion wins)
        severe = [i for i in listed if _rank(i.severity) >= _rank(rules.severity)]
        severe = [i for i in severe if levels[i.code] == "error"]
        results[f"severity<{rules.severity}"] = (
            f"{len(severe)} checks of severity {rules.severity} or higher: "
            + ", ".join(f"{i.code} ({i.count} pages)" for i in severe)
            if severe
            else None
        )
    for code, level in rules.checks.items():
        if level != "error":
            continue
        failing = [i for i in listed if i.code == code]
        results[f"{code}=error"] = (
            f"{code} lists {failing[0].count} pages, asserted error" if failing else None
        )
    failures = [why for why in results.values() if why]
    return Verdict(audit, run, listed, levels, failures, results)


def regressed(audit: seo.Audit, run: seo.AuditRun) -> set[str]:
    """The checks a run regressed on by the API's rule (docs/audits.md, Regressions): high,
    new to the site or on pages it had, not muted nor ignored by the audit's settings."""
    diff = run.diff
    if diff is None:
        return set()
    ignored = set(audit.regression.ignore or [])
    grown = [c for c in diff.persisting if (c.new_pages or 0) > 0]
    return {
        change.code
        for change in [*diff.new, *grown]
        if change.severity == "high" and not change.muted and change.code not in ignored
    }


def _rank(severity: str) -> int:
    return SEVERITIES.index(severity) if severity in SEVERITIES else 0
