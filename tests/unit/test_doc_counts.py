"""Counts the docs state are the code's: the report checks (README, docs/api.md and its
table, the migration guide) and the audits' cross-page checks (docs/audits.md's table).
A check added or removed without its docs fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sitelens.audits.checks import DEFINITIONS
from sitelens.seo.checks import CHECKS, FIELD_CHECKS

ROOT = Path(__file__).resolve().parents[2]


def text(name: str) -> str:
    return (ROOT / name).read_text()


@pytest.mark.parametrize(
    ("document", "pattern"),
    [
        ("README.md", r"runs (\d+) SEO, performance, security and other checks"),
        ("docs/api.md", r"`results` has (\d+) entries"),
        ("docs/migrating-from-phpanalytics-phpseo.md", r"`results` holds (\d+) checks"),
    ],
)
def test_the_number_of_report_checks_stated_is_the_registry_s(document: str, pattern: str):
    stated = re.findall(pattern, text(document))
    assert stated, f"{document} no longer says /{pattern}/: update this test"
    assert {int(n) for n in stated} == {len(CHECKS)}


def test_the_report_checks_table_lists_every_check_once():
    """The report checks, then those run only with field data."""
    rows = re.findall(
        r"^\| `([a-z0-9_]+)` \| [a-z]+ \| (?:high|medium|low) \|", text("docs/api.md"), re.M
    )
    assert sorted(rows) == sorted([*CHECKS, *FIELD_CHECKS])


def test_the_audits_cross_page_table_lists_every_check_once():
    section = text("docs/audits.md")
    rows = re.findall(r"^\| ((?:`[a-z_]+`(?:, )?)+) \| (?:high|medium|low)", section, re.M)
    listed = [code for row in rows for code in re.findall(r"`([a-z_]+)`", row)]
    assert sorted(listed) == sorted(DEFINITIONS)
