"""Files of each format an import reads, with known totals: a Plausible CSV export zip, a
GA4 Data API report, GA4 BigQuery rows and an Umami CSV export; and a multipart body."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import date, timedelta
from typing import Any

# Plausible's export of three days: visitors, visits, pageviews, bounces, duration (s)
PLAUSIBLE_DAYS = [(10, 12, 30, 4, 600), (20, 18, 50, 6, 900), (5, 5, 5, 5, 0)]


def days(first: date, count: int) -> list[date]:
    return [first + timedelta(days=n) for n in range(count)]


def plausible_zip(first: date, extra: dict[str, str] | None = None) -> bytes:
    """Plausible's CSV export of three days from `first`, named as Plausible names them."""
    span = f"{first:%Y%m%d}_{first + timedelta(days=2):%Y%m%d}"
    when = days(first, 3)
    visitors = "date,visitors,pageviews,bounces,visits,visit_duration\n" + "".join(
        f"{d},{v},{p},{b},{s},{t}\n"
        for d, (v, s, p, b, t) in zip(when, PLAUSIBLE_DAYS, strict=True)
    )
    sources = (
        "date,source,referrer,utm_source,utm_medium,utm_campaign,utm_content,utm_term,"
        "pageviews,visitors,visits,visit_duration,bounces\n"
        f"{when[0]},Google,,,,,,,20,6,8,400,2\n"
        f"{when[0]},,,,,,,,10,4,4,200,2\n"
        f"{when[1]},Google,,,,,,,50,20,18,900,6\n"
        f"{when[2]},Hacker News,,,,,,,5,5,5,0,5\n"
    )
    pages = (
        "date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors\n"
        f"{when[0]},site.example,/,12,10,25,,0\n"
        f"{when[0]},site.example,/pricing,3,3,5,,0\n"
        f"{when[1]},site.example,/,18,20,50,,0\n"
        f"{when[2]},site.example,/pricing,5,5,5,,0\n"
    )
    devices = (
        "date,device,visitors,visits,visit_duration,bounces,pageviews\n"
        f"{when[0]},Desktop,10,12,600,4,30\n{when[1]},Mobile,20,18,900,6,50\n"
        f"{when[2]},Desktop,5,5,0,5,5\n"
    )
    events = (
        "date,name,link_url,path,visitors,events\n"
        f"{when[0]},Signup,,,2,3\n{when[1]},Signup,,,1,1\n{when[1]},Outbound Link: Click,x,,4,4\n"
    )
    files = {
        f"imported_visitors_{span}.csv": visitors,
        f"imported_sources_{span}.csv": sources,
        f"imported_pages_{span}.csv": pages,
        f"imported_devices_{span}.csv": devices,
        f"imported_custom_events_{span}.csv": events,
        **(extra or {}),
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return out.getvalue()


def ga4_report(first: date) -> bytes:
    """A `batchRunReports` answer: totals by date, and users by country."""
    when = [d.strftime("%Y%m%d") for d in days(first, 2)]

    def row(dims: list[str], metrics: list[float]) -> dict[str, Any]:
        return {
            "dimensionValues": [{"value": d} for d in dims],
            "metricValues": [{"value": str(m)} for m in metrics],
        }

    totals = {
        "dimensionHeaders": [{"name": "date"}],
        "metricHeaders": [
            {"name": n, "type": "TYPE_INTEGER"}
            for n in ("totalUsers", "sessions", "screenPageViews", "engagedSessions")
        ]
        + [{"name": "userEngagementDuration", "type": "TYPE_SECONDS"}],
        "rows": [row([when[0]], [7, 8, 21, 6, 400]), row([when[1]], [3, 4, 9, 1, 200])],
        "rowCount": 2,
    }
    countries = {
        "dimensionHeaders": [{"name": "date"}, {"name": "country"}],
        "metricHeaders": [{"name": "totalUsers"}, {"name": "sessions"}],
        "rows": [
            row([when[0], "Germany"], [5, 6]),
            row([when[0], "United States"], [2, 2]),
            row([when[1], "Germany"], [3, 4]),
        ],
    }
    return json.dumps(
        {"kind": "analyticsData#batchRunReports", "reports": [totals, countries]}
    ).encode()


def bigquery_rows(first: date) -> bytes:
    """GA4 BigQuery export rows: two users, three sessions, five pageviews, one signup."""
    start = _epoch(first)

    def event(user: str, session: int, seconds: int, name: str, page: str) -> str:
        return json.dumps(
            {
                "event_date": first.strftime("%Y%m%d"),
                "event_timestamp": str((start + seconds) * 1_000_000),
                "event_name": name,
                "user_pseudo_id": user,
                "event_params": [
                    {"key": "ga_session_id", "value": {"int_value": session}},
                    {"key": "page_location", "value": {"string_value": f"https://s.example{page}"}},
                ],
                "device": {
                    "category": "mobile",
                    "operating_system": "iOS",
                    "web_info": {"browser": "Safari"},
                },
                "geo": {"country": "France"},
                "traffic_source": {"source": "(direct)", "medium": "(none)"},
            }
        )

    lines = [
        event("u1", 1, 60, "session_start", "/"),
        event("u1", 1, 60, "page_view", "/"),
        event("u1", 1, 120, "page_view", "/docs"),
        event("u1", 1, 180, "sign_up", "/docs"),
        event("u2", 2, 3600, "page_view", "/"),
        event("u2", 3, 7200, "page_view", "/pricing"),
        event("u2", 3, 7230, "page_view", "/"),
    ]
    return ("\n".join(lines) + "\n").encode()


def _epoch(day: date) -> int:
    return (day - date(1970, 1, 1)).days * 86_400


UMAMI_HEADER = (
    "website_id,session_id,visit_id,event_id,hostname,browser,os,device,screen,language,"
    "country,region,city,url_path,url_query,utm_source,utm_medium,utm_campaign,utm_content,"
    "utm_term,referrer_path,referrer_query,referrer_domain,page_title,event_type,event_name,"
    "created_at"
)


def umami_csv(first: date) -> bytes:
    """Umami's export: two sessions, one visit each; three pageviews and one custom event."""

    def line(session: str, visit: str, page: str, kind: int, name: str, at: str, ref: str) -> str:
        return (
            f"w,{session},{visit},e,u.example,chrome,Mac OS,desktop,1920x1080,en,DE,,Berlin,"
            f"{page},,,,,,,,,{ref},T,{kind},{name},{first} {at}"
        )

    lines = [
        UMAMI_HEADER,
        line("s1", "v1", "/", 1, "", "10:00:00", "www.google.com"),
        line("s1", "v1", "/blog", 1, "", "10:01:40", "www.google.com"),
        line("s1", "v1", "/blog", 2, "signup", "10:02:00", ""),
        line("s2", "v2", "/", 1, "", "12:00:00", ""),
    ]
    return ("\n".join(lines) + "\n").encode()


def multipart(
    file: bytes, filename: str, fields: dict[str, str] | None = None
) -> tuple[bytes, str]:
    """A multipart/form-data body with `file` (and text fields), and its content type."""
    boundary = "sitelens-test-boundary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in (fields or {}).items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + file
        + b"\r\n"
    )
    return b"".join(
        parts
    ) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"
