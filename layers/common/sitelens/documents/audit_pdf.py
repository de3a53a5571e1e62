"""An audit run's PDF (`GET /api/v1/audits/{id}/runs/{run}/export.pdf`): the score and
issue counts, the changes since the run before, the issues by severity with their top
pages and fixes, and the field vitals of the pages when the account tracks the host.

Bounded whatever the site's size (docs/documents.md, "Bounds"): it reads the audit's record,
the run's state and its issues (a few dozen items; never its pages), and prints at most
`TOP_PAGES` pages an issue ("and N more"), so a 20,000-page run's document is built in
about as long as a 200-page run's.
"""

from __future__ import annotations

from typing import Any

from sitelens.audits.definitions import DEFINITIONS
from sitelens.audits.done_runs import summary_of
from sitelens.audits.records import stored
from sitelens.audits.results import run_issues
from sitelens.audits.runs import SEVERITIES
from sitelens.documents.brand import SITELENS, Brand, of_record
from sitelens.documents.layout import Document

TOP_PAGES = 10  # pages printed an issue: the most visited first when traffic is known
PAGE_CHECK = "page_"
_RATING = {"good": "good", "needs_improvement": "needs improvement", "poor": "poor", None: "-"}


def filename(audit_id: int, run: int) -> str:
    return f"sitelens-audit-{audit_id}-run-{run}.pdf"


def build(account_id: str, audit_id: int, run: int) -> bytes:
    """The PDF of the audit's run `run` under its site's brand (`brand.of_record`). 404
    when the audit is not the account's or never had that run; 409 while the run is not
    done."""
    record = stored(account_id, audit_id)
    state, summary = summary_of(record, run)
    issues = run_issues(record, run)
    field = state.get("field_summary")
    return render(record, summary, issues, _loaded(field), of_record(account_id, record))


def _loaded(text: Any) -> dict[str, Any] | None:
    import json

    return json.loads(text) if isinstance(text, str) and text else None


def render(
    record: dict[str, Any],
    summary: dict[str, Any],
    issues: list[dict[str, Any]],
    field: dict[str, Any] | None,
    brand: Brand = SITELENS,
) -> bytes:
    """The document of a done run from what it stored (pure: the bench times it alone)."""
    name = record.get("name") or record["url"]
    doc = Document(f"Site audit: {name}, run {summary['run']}", brand)
    doc.heading(f"Site audit of {name}", 18)
    finished = (summary.get("finished_at") or "")[:10]
    doc.paragraph(
        f"{record['url']} · run {summary['run']} · finished {finished} · "
        f"{_count(summary.get('pages') or 0, 'page')} crawled",
        grey=True,
    )
    doc.ln(2)
    counts = summary.get("issues") or {}
    doc.figures(
        [
            (str(summary.get("score", "-")), "score out of 100"),
            *((str(counts.get(s, 0)), f"{s}-severity issues") for s in SEVERITIES),
        ]
    )
    _changes(doc, summary, {i["code"]: i["title"] for i in issues})
    _issues(doc, issues)
    if field:
        _field(doc, field)
    return doc.output_bytes()


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def _title(code: str, titles: dict[str, str]) -> str:
    if code in titles:
        return titles[code]
    if code in DEFINITIONS:
        return DEFINITIONS[code][1]
    return f"Pages failing the report check {code.removeprefix(PAGE_CHECK)}"


def _changes(doc: Document, summary: dict[str, Any], titles: dict[str, str]) -> None:
    doc.heading("Changes since the last run")
    change = summary.get("diff")
    if change is None:
        first = summary["run"] <= 1
        doc.paragraph(
            "This is the audit's first run: there is nothing to compare it with."
            if first
            else "The run before did not finish, so this run is not compared with it."
        )
        return
    delta = change.get("score_delta")
    moved = "unchanged" if not delta else f"{'up' if delta > 0 else 'down'} {abs(delta)} points"
    doc.paragraph(
        f"Score {moved}. Pages added: {change.get('pages_added', 0):,}; "
        f"pages removed: {change.get('pages_removed', 0):,}."
    )
    for reason in summary.get("regression_reasons") or []:
        doc.paragraph(f"Regression: {reason}")
    rows = []
    for kind, label in (("new", "new"), ("fixed", "fixed"), ("removed", "gone")):
        for entry in change.get(kind) or []:
            rows.append([_title(entry["code"], titles), label, entry["severity"], entry["pages"]])
    for entry in change.get("persisting") or []:
        if entry.get("new_pages") or entry.get("fixed_pages") or entry.get("added_pages"):
            spread = f"+{entry['new_pages'] + entry['added_pages']} / -{entry['fixed_pages']}"
            rows.append(
                [
                    _title(entry["code"], titles),
                    f"pages {spread}",
                    entry["severity"],
                    entry["pages"],
                ]
            )
    if rows:
        doc.grid(("Issue", "Change", "Severity", "Pages now"), rows, (60, 18, 12, 10))
    else:
        doc.paragraph("No issue appeared, went or changed its pages.")


def _issues(doc: Document, issues: list[dict[str, Any]]) -> None:
    doc.heading("Issues by severity")
    if not issues:
        doc.paragraph("No issues found.")
    for severity in SEVERITIES:
        found = [i for i in issues if i["severity"] == severity]
        if not found:
            continue
        doc.heading(f"{severity.capitalize()} severity ({len(found)})", 12)
        for issue in found:
            muted = (
                " (muted: counted in neither the score nor regressions)" if issue["muted"] else ""
            )
            doc.ln(2)
            doc.paragraph(
                f"{issue['title']}: {_count(issue['count'], 'page')}{muted}", 10.5, bold=True
            )
            doc.paragraph(f"Fix: {issue['fix']}")
            doc.paragraph(f"Learn more: {issue['learn_more']}", 8.5, grey=True)
            _top_pages(doc, issue)


def _top_pages(doc: Document, issue: dict[str, Any]) -> None:
    pages = list(issue["pages"])
    traffic = issue.get("pageviews") is not None
    if traffic:  # the pages people visit most, first
        pages.sort(key=lambda p: -(p.get("pageviews") or 0))
    top = pages[:TOP_PAGES]
    if traffic:
        rows = [[p["url"], p.get("detail") or "", p.get("pageviews") or 0] for p in top]
        doc.grid(("Page", "Detail", "Pageviews"), rows, (55, 33, 12))
    else:
        doc.grid(("Page", "Detail"), [[p["url"], p.get("detail") or ""] for p in top], (60, 40))
    more = issue["count"] - len(top)
    if more > 0:
        doc.paragraph(f"and {_count(more, 'more page')}", 9, grey=True)


def _field(doc: Document, field: dict[str, Any]) -> None:
    doc.heading("Field vitals (real visits)")
    doc.paragraph(
        f"Core Web Vitals measured by Sitelens analytics on {_count(field['pages'], 'page')} "
        f"of this site in the {field['days']} days before the run (p75, as Google judges them)."
    )
    ratings = field.get("ratings") or {}
    rows = [
        [name.upper(), r.get("good", 0), r.get("needs_improvement", 0), r.get("poor", 0)]
        for name, r in ratings.items()
    ]
    doc.grid(("Vital", "Pages good", "Needs improvement", "Poor"), rows, (25, 25, 25, 25))
    worst = field.get("worst") or []
    if worst:
        doc.paragraph("The pages rated worst:", 10)
        doc.grid(
            ("Page", "LCP", "INP", "CLS"),
            [
                [
                    p["url"],
                    _vital(p.get("lcp"), "ms", p.get("lcp_rating")),
                    _vital(p.get("inp"), "ms", p.get("inp_rating")),
                    _vital(p.get("cls"), "", p.get("cls_rating")),
                ]
                for p in worst
            ],
            (46, 18, 18, 18),
        )


def _vital(value: Any, unit: str, rating: str | None) -> str:
    if value is None:
        return "-"
    shown = f"{value:,} {unit}".strip() if unit else f"{value}"
    return f"{shown} ({_RATING.get(rating, rating)})"
