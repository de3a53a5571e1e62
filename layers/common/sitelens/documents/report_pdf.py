"""A report's PDF (`GET /api/v1/reports/{id}/export.pdf`): the page's score and verdict,
its failed checks by importance with what was found and the fix, the checks it passed,
and its field data (real visits) when the account tracks the host.

A report is a snapshot of one page (regenerating replaces it), so "the changes since the
last run" are an audit's: a report's document says when it was generated. Bounded: a
report has some forty checks, each value and error already bounded when stored.
"""

from __future__ import annotations

from typing import Any

from sitelens import reports
from sitelens.documents.brand import SITELENS, Brand, of_record
from sitelens.documents.layout import Document

IMPORTANCES = ("high", "medium", "low")
MAX_VALUE = 200  # characters of a check's value printed beside it


def filename(report_id: int) -> str:
    return f"sitelens-report-{report_id}.pdf"


def build(account_id: str, report_id: int, base_url: str) -> bytes:
    """The PDF of the account's report under its site's brand (`brand.of_record`); 404
    when it is not the account's."""
    report = reports.get(account_id, report_id, base_url)
    return render(report, of_record(account_id, report))


def render(report: dict[str, Any], brand: Brand = SITELENS) -> bytes:
    """The document of a report as the API shows it (`reports.show`)."""
    doc = Document(f"SEO report: {report['url']}", brand)
    doc.heading(f"SEO report of {report['url']}", 16)
    doc.paragraph(f"Generated {(report.get('generated_at') or '')[:10]}", grey=True)
    doc.ln(2)
    results: dict[str, Any] = report["results"]
    failed = {k: r for k, r in results.items() if not r["passed"]}
    doc.figures(
        [
            (str(report["score"]), "score out of 100"),
            (str(report["result"]), "result"),
            (str(len(failed)), "checks failed"),
            (str(len(results) - len(failed)), "checks passed"),
        ]
    )
    doc.heading("Failed checks by importance")
    if not failed:
        doc.paragraph("Every check passed.")
    for importance in IMPORTANCES:
        found = {k: r for k, r in failed.items() if r.get("importance") == importance}
        if not found:
            continue
        doc.heading(f"{importance.capitalize()} importance ({len(found)})", 12)
        for key, result in found.items():
            doc.ln(2)
            doc.paragraph(key.replace("_", " ").capitalize(), 10.5, bold=True)
            for sentence in (result.get("errors") or {}).values():
                doc.paragraph(f"Found: {sentence}")
            if result.get("value") not in (None, "", [], {}):
                doc.paragraph(f"Value: {_value(result['value'])}", 9, grey=True)
            if result.get("fix"):
                doc.paragraph(f"Fix: {result['fix']}")
                doc.paragraph(f"Learn more: {result['learn_more']}", 8.5, grey=True)
    passed = [k.replace("_", " ") for k, r in results.items() if r["passed"]]
    if passed:
        doc.heading("Checks passed")
        doc.paragraph(", ".join(passed))
    _field(doc, report.get("field_data"))
    return doc.output_bytes()


def _value(value: Any) -> str:
    if isinstance(value, list):
        text = ", ".join(str(v) for v in value)
    elif isinstance(value, dict):
        text = ", ".join(f"{k}: {v}" for k, v in value.items())
    else:
        text = str(value)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def _field(doc: Document, field: dict[str, Any] | None) -> None:
    if not field or field.get("status") != "measured":
        return  # shown only where the account tracks the host and it was measured
    doc.heading("Field vitals (real visits)")
    doc.paragraph(
        f"Measured by Sitelens analytics over the last {field['days']} days. {field['note']}"
    )
    traffic = field.get("traffic") or {}
    if traffic:
        doc.paragraph(
            f"Pageviews: {traffic.get('pageviews', 0):,} · visitors: {traffic.get('visitors', 0):,}"
        )
    rows = []
    for name, vital in (field.get("vitals") or {}).items():
        p75 = vital.get("p75")
        shown = "-" if p75 is None else (f"{p75}" if name == "cls" else f"{p75:,} ms")
        rating = (vital.get("rating") or "-").replace("_", " ")
        rows.append([name.upper(), shown, rating, f"{vital.get('samples', 0):,}"])
    if rows:
        doc.grid(("Vital", "p75", "Rating", "Page views measured"), rows, (20, 25, 30, 25))
