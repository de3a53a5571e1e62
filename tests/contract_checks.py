"""A check of the contract test's schemathesis runs (tests/e2e/test_contract.py loads this file
with SCHEMATHESIS_HOOKS): a request the document allows may be refused with 422 only on the
fields whose rules no schema states (a domain another account took, a cursor we did not
sign, a page that cannot be fetched), each listed below with its reason. A 422 naming any
other field means the document allows what the server refuses: tighten the document (a
pattern, a length, an enum) or the server's rule, do not add the field here."""

from __future__ import annotations

import json
from typing import Any

import schemathesis
from schemathesis.specs.openapi.checks import is_unexpected_http_status_case

PERIOD = "a period longer than 366 days, ending before it starts, or outside 1970 to 9998"
CURSOR = "a cursor of the documented shape we did not sign, or signed for another list"
WEBSITE_FIELDS = {
    "password": "privacy 2 without a password, sent or stored",
    "exclude_ips": "a line that is no IP address or CIDR range",
    "exclude_params": "more than 1,000 lines, or a line with a forbidden character",
}
REPORT_FIELDS = {
    "url": "a page that cannot be fetched (unreachable, not HTML, too large) or no URL",
    "password": "privacy 2 without a password, sent or stored",
}
GOAL_NAME = "another goal of the website has it, or it is white space only"
ANNOTATION_FIELDS = {
    "date": "a day or time that does not exist, or of a year outside 1970 to 9998",
    "text": "white space only",
    "link": "a URL without a host",
}

# keys and webhooks (docs/keys-and-webhooks.md)
SCOPE_FIELDS = {
    "websites": "an id of no website of the account",
    # the Host pattern is the server's rule for ASCII text (tests/unit/test_contract_rules.py)
    "projects": "a name in another script that IDNA refuses, more than 50 as text, or 254 "
    "characters without a trailing dot",
}
ENDPOINT_FIELDS = {
    "url": "refused by the fetch guard (a private address, no such host, a port not fetched)",
    **SCOPE_FIELDS,
}

# operationId -> {field: why a schema cannot refuse it}; None: an HTML page, any field.
REFUSABLE: dict[str, dict[str, str] | None] = {
    "listWebsites": {"cursor": CURSOR},
    "listKeys": {"cursor": CURSOR},
    "listGuestLinks": {"cursor": CURSOR},
    "listWebhookDeliveries": {"cursor": CURSOR},
    "createGuestLink": {
        "key": "a key that may not have guests (a write key, or one over the whole account)",
        **{kind: f"a {kind} the key does not reach" for kind in ("website", "report", "audit")},
        "expires_at": "a moment in the past, or past the key's own expiry",
    },
    **{
        operation: {
            "name": "a name the website's funnels have already",
            "steps": "a goal id the website does not have",
            "funnels": "an 11th funnel of the website",
        }
        for operation in ("createFunnel", "updateFunnel", "patchFunnel")
    },
    "createKey": {
        **SCOPE_FIELDS,
        "expires_at": "a moment in the past, or more than three years ahead",
        "name": "a 101st key of the account",
    },
    "createWebhook": {**ENDPOINT_FIELDS},
    "updateWebhook": ENDPOINT_FIELDS,
    "patchWebhook": ENDPOINT_FIELDS,
    **{
        operation: {
            "domain": "taken by any account, or text that is no host name or address",
            **WEBSITE_FIELDS,
        }
        for operation in ("createWebsite", "updateWebsite", "patchWebsite")
    },
    "getDomainVerification": {"domain": "text that is no host name"},
    "checkDomainVerification": {
        "domain": "text that is no host name, no token asked first, or no proof found",
        "url": "a page not on the domain, or one that cannot be fetched",
    },
    "getStats": {"from": PERIOD, "to": PERIOD, "cursor": CURSOR},
    "getSharedStats": {"from": PERIOD, "to": PERIOD, "cursor": CURSOR},
    "getSharedDashboard": {
        "from": PERIOD,
        "to": PERIOD,
        "segment": "digits that are no saved segment of the website",
    },
    "getWebsiteSharePage": None,  # the period, on an HTML page
    "query": {
        # Plausible's query language: bounds, metrics that need dimensions, filter syntax,
        # the websites of the account.
        name: "a rule across fields of the query"
        for name in (
            "site_id",
            "metrics",
            "date_range",
            "dimensions",
            "filters",
            "order_by",
            "include",
            "pagination",
        )
    },
    "trackEvent": {
        "page": "a URL whose host is no host name or address",
        # custom properties, revenue, scroll depth, vitals (docs/properties-and-events.md)
        "props": "text that is no JSON object of the documented bounds",
        "revenue": "an amount that is no decimal in range, or without its currency (or the "
        "currency without an amount)",
        "scroll_depth": "a number over 100",
        **{vital: "a number beyond its bound" for vital in ("lcp", "inp", "cls", "fcp", "ttfb")},
        # Plausible's format, JSON in a text/plain body (docs/api.md)
        "body": "text/plain that is no JSON object, or not UTF-8",
        "name": "Plausible's format with an event name of white space only",
        "domain": "Plausible's format with a blank domain in its list, or more than 10",
        "e": "Plausible's engagement with neither a time nor a scroll depth",
    },
    "unsubscribeLink": None,  # a token we did not sign, on an HTML page
    # brands and client recipients (docs/white-label.md)
    **{
        operation: {
            "name": "white space only",
            "logo_url": "a logo that cannot be fetched, or is no PNG, JPEG or WebP image of at "
            "most 256 KB, or a URL with a user name or password",
            "frame_ancestors": "a line that is no https origin, or more than 10 lines",
        }
        for operation in ("putProjectBrand", "putAccountBrand")
    },
    **{
        operation: {
            "email": "an address our stricter rule refuses, or an 11th recipient",
            "segment": "an id of no saved segment of the website, or any for an audit's",
        }
        for operation in ("addWebsiteRecipient", "addAuditRecipient")
    },
    # teams (docs/teams.md)
    **{
        operation: {"cursor": CURSOR}
        for operation in ("listMembers", "listInvitations", "listWorkspaces")
    },
    "listAuditLog": {"cursor": CURSOR},
    "getUsage": {"month": "a month to come (the schema cannot know today)"},
    "inviteMember": {"email": "an address our stricter rule refuses, or past a cap"},
    **{
        operation: {"token": "a token of the documented shape we did not sign, expired or used"}
        for operation in ("showInvitation", "acceptInvitation")
    },
    # Search Console (docs/search-console.md)
    **{
        operation: {
            "property": "a property of another domain than the website's",
            "refresh_token": "both secrets given, or neither",
            "service_account_key": "a key file that is no service account's, or both given",
        }
        for operation in ("connectSearchConsole", "connectSearchConsolePatch")
    },
    "authorizeSearchConsole": {"property": "a property of another domain than the website's"},
    "searchConsoleCallback": {
        "state": "a state we did not sign, or signed more than 10 minutes ago",
        "code": "a code Google's token endpoint refuses",
    },
    # data in and out (docs/backfill.md, docs/imports.md, docs/exports.md, docs/crawlers.md)
    "backfillEvents": {
        f"events[{n}].{field}": why
        for n in range(100)
        for field, why in (
            ("page", "a page not on the website's domain"),
            ("timestamp", "a moment ahead of now, or older than the bound"),
            ("id", "an id twice in the batch"),
        )
    },
    "createExport": {"to": "a last day after today, before the first, or 366 days after it"},
    "createImport": {"source": "neither a file nor a source, or both"},
    "uploadLogs": {"fields": "a name that is no CloudFront real-time log field"},
    "confirmRecipientLink": None,  # a token we did not sign, on an HTML page
    "unsubscribeRecipientLink": None,
    "confirmRecipientOneClick": {"token": "a token of the documented shape we did not sign"},
    "unsubscribeRecipientOneClick": {"token": "a token of the documented shape we did not sign"},
    "unsubscribeOneClick": {"token": "a token of the documented shape we did not sign"},
    "listReports": {"cursor": CURSOR},
    "listProjects": {"cursor": CURSOR},
    "createReport": REPORT_FIELDS,
    # audits (docs/audits.md): a start URL the fetcher refuses, as a report's
    # and their settings' rules no schema states (docs/audits.md, "Changing an audit")
    **{
        operation: {
            "url": "a URL whose host is no host, or that is no public address",
            "password": "privacy 2 without a password, sent or stored",
            "include": "a line that is no path pattern (one starts with /, * or ?)",
            "exclude": "a line that is no path pattern (one starts with /, * or ?)",
            "name": "white space only",
            "list_urls": "a line that is no absolute http(s) URL or is off the start URL's host, "
            "or more lines than max_pages",
            "headers": "a name the crawler sets itself (Host, Cookie, Authorization...) or one "
            "given twice in other cases; with basic auth and cookie over 4,096 bytes; a form's "
            "text that is no Name: value lines or JSON object",
            **{
                part: "with the other crawl secrets over 4,096 bytes, or a final line break "
                "(which Python's reading of a pattern's $ lets through)"
                for part in ("basic_auth", "cookie")
            },
            "max_rate": "faster than the service's rate (SITELENS_AUDIT_RATE)",
            "schedule": "past the account's cap of scheduled audits",
            **{part: "a form's text that is no JSON object" for part in ("regression", "muted")},
        }
        for operation in ("createAudit", "updateAudit", "patchAudit")
    },
    "listAudits": {"cursor": CURSOR},
    **{
        operation: {"cursor": CURSOR, "run": "a run the audit has not had yet"}
        for operation in ("listAuditPages", "listAuditIssues")
    },
    # a run compared with itself, with one it never had, or a first run with none before it
    "listAuditRunChanges": {
        "against": "the run itself, a run the audit never had, or none before a first run",
    },
    "updateReport": REPORT_FIELDS,
    "patchReport": REPORT_FIELDS,
    # goals, funnels and annotations (docs/goals-and-funnels.md)
    "createGoal": {
        "event_name": "another goal of the website has it, or it is white space only",
        "page_path": "another goal of the website has it",
        "display_name": "another goal of the website has it, or it is white space only",
        "goals": "a 101st goal, or goals too large beside the website's exclusion lists",
        "custom_props": "sent with page_path (only an event goal matches properties)",
        "currency": "sent with page_path (only an event goal counts revenue)",
    },
    "updateGoal": {"display_name": GOAL_NAME},
    "patchGoal": {"display_name": GOAL_NAME},
    "createAnnotation": {**ANNOTATION_FIELDS, "annotations": "a 1,001st annotation"},
    "updateAnnotation": ANNOTATION_FIELDS,
    "patchAnnotation": ANNOTATION_FIELDS,
    **{
        operation: {
            "name": "a name the website's segments have already, or white space only",
            "filters": "filters the query API refuses, naming a segment, or over 4,000 bytes",
            "segments": "a 21st segment of the website",
        }
        for operation in ("createSegment", "updateSegment", "patchSegment")
    },
    "queryJourneys": {
        "page": "missing for next_pages (required by one journey only)",
        "steps": "sent with next_pages (of paths only)",
        **{
            name: "a rule across fields of the query"
            for name in ("site_id", "date_range", "filters")
        },
    },
    "queryFunnel": {
        "steps": "a name no goal of the website has",
        "funnel_id": "an id no saved funnel of the website has",
        **{
            name: "a rule across fields of the query"
            for name in ("site_id", "date_range", "filters")
        },
    },
}


def refused_fields(body: bytes) -> set[str] | None:
    """The fields a 422's JSON body names; None when the body is not one."""
    try:
        message = json.loads(body)["message"]
    except (ValueError, KeyError, TypeError):
        return None
    return set(message) if isinstance(message, dict) else None


@schemathesis.check
def refused_only_where_documented(ctx: Any, response: Any, case: Any) -> bool | None:
    """A schema-valid request answered 422 names only fields of its operation's REFUSABLE."""
    meta = case.meta
    if response.status_code != 422 or meta is None or not meta.generation.mode.is_positive:
        return None
    if is_unexpected_http_status_case(case):  # a probe of the server, as the built-in skips
        return None
    operation_id = case.operation.definition.raw.get("operationId", case.operation.label)
    if operation_id not in REFUSABLE:
        raise AssertionError(f"{operation_id} refused a schema-valid request with 422")
    allowed = REFUSABLE[operation_id]
    if allowed is None:
        return None
    named = refused_fields(response.content)
    if named is None or not named <= set(allowed):
        raise AssertionError(
            f"{operation_id} refused a schema-valid request on {sorted(named or ['?'])}; "
            f"only {sorted(allowed)} have rules no schema states"
        )
    return None
