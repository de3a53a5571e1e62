"""The issue codes an audit can report: each cross-page check's (`audits.checks.DEFINITIONS`)
and `page_<key>` for each report check (`seo.checks.CHECKS`). The one rule for every input
that names an issue: the pages filter, `muted` and `regression.ignore`."""

from __future__ import annotations

from functools import cache
from typing import Any

from sitelens.core.errors import FieldError, echoed

PAGE_CHECK = "page_"  # the prefix of a report check's issue


@cache
def known() -> frozenset[str]:
    """Every issue code a run may report."""
    # Imported here: the checks' modules (about 0.1 s) load only when a code is checked.
    from sitelens.audits.checks import DEFINITIONS
    from sitelens.seo.checks import CHECKS

    return frozenset(DEFINITIONS) | frozenset(PAGE_CHECK + key for key in CHECKS)


def check(value: Any, field: str = "issue") -> str:
    """An issue code a run may report, trimmed; FieldError naming the field otherwise."""
    code = value.strip() if isinstance(value, str) else None
    if code is None or code not in known():
        shown = echoed(code) if code else ""
        raise FieldError(
            f"The {field} field must be an issue code an audit reports, such as "
            f"broken_internal_link or page_title{f'; {shown} is not one' if shown else ''}."
        )
    return code
