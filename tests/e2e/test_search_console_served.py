"""Search Console through `make serve`, as a client would (docs/search-console.md): its
local Google grants the developer refresh token every property; a website connected with
it is backfilled by the tasks worker and asked with the query API; the OAuth flow runs as
a browser follows its redirects; bad connections are refused and a revoked grant is shown
in GET's last import."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sitelens.local import google
from tests.e2e.test_local_server import call


def imported(url: str, key: str) -> dict[str, Any]:
    """The connection once its import has finished (done or failed)."""
    deadline = time.monotonic() + 60
    while True:
        shown = call("GET", url, key)
        assert shown.status == 200, shown.body
        if shown.body["data"]["last_import"]["status"] in ("done", "failed"):
            return dict(shown.body["data"])
        assert time.monotonic() < deadline, shown.body
        time.sleep(0.2)


def test_search_console_as_a_client_uses_it(server, dev_key):
    domain = f"gsc-{uuid.uuid4().hex[:10]}.example"
    site = call("POST", f"{server.analytics}/api/v1/websites", dev_key, form={"domain": domain})
    assert site.status == 201, site.body
    url = f"{server.analytics}/api/v1/websites/{site.body['data']['id']}/search-console"
    prop = f"sc-domain:{domain}"

    wrong = call(
        "PUT", url, dev_key, form={"property": "https://other.example/", "refresh_token": "t"}
    )
    assert wrong.status == 422 and domain in wrong.body["message"]["property"][0]
    both = {"property": prop, "refresh_token": "t", "service_account_key": {"type": "x"}}
    assert call("PUT", url, dev_key, json_body=both).status == 422
    assert call("GET", url, dev_key).status == 404

    # a grant Google does not know (revoked): the import fails, and GET says why
    assert (
        call("PUT", url, dev_key, form={"property": prop, "refresh_token": "1//gone"}).status == 200
    )
    failed = imported(url, dev_key)["last_import"]
    assert failed["status"] == "failed" and "invalid_grant" in failed["error"]

    # the developer token: the whole window is imported, and the query API reads it
    token = {"property": prop, "refresh_token": google.DEVELOPER_TOKEN}
    connected = call("PUT", url, dev_key, form=token)
    assert connected.status == 200 and google.DEVELOPER_TOKEN not in str(connected.body)
    done = imported(url, dev_key)
    assert done["last_import"]["status"] == "done" and done["last_import"]["rows"] > 0
    today = datetime.now(UTC).date()
    days = [(today - timedelta(days=n)).isoformat() for n in range(27, 2, -1)]
    asked = {
        "site_id": site.body["data"]["id"],
        "metrics": ["clicks", "impressions"],
        "date_range": [days[0], days[-1]],
    }
    answer = call("POST", f"{server.analytics}/api/v1/query", dev_key, json_body=asked)
    assert answer.status == 200, answer.body
    rows = [row for day in days for row in google.known_rows(prop, day, 40)]
    assert answer.body["results"][0]["metrics"] == [
        sum(row[5] for row in rows),
        sum(row[6] for row in rows),
    ]

    # a person's OAuth flow: the consent screen and the callback, followed as a browser
    consented = call("GET", f"{url}/authorize?property=https%3A%2F%2F{domain}%2F", dev_key)
    assert consented.status == 200, consented.body
    assert consented.body["data"]["property"] == f"https://{domain}/"
    assert consented.body["data"]["method"] == "oauth"

    assert call("DELETE", url, dev_key).status == 200
    assert call("GET", url, dev_key).status == 404
