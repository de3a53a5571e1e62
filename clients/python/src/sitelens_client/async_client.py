"""`AsyncSitelens`: the async client, the same methods as `Sitelens`, awaited.

Written from client.py by clients/python/scripts/make_async.py: edit that file, not this one.
"""

from __future__ import annotations

import os
from typing import Any, Generic

import httpx

from sitelens_client import _calls
from sitelens_client._async_runner import AsyncPaginator, AsyncRunner
from sitelens_client._calls import Base, Call, M, Page, RateLimit, Retries
from sitelens_client.models import analytics, seo
from sitelens_client.version import VERSION

LOCAL_ANALYTICS = "http://127.0.0.1:3000"  # make serve's bases
LOCAL_SEO = "http://127.0.0.1:3001"


class Collection(Generic[M]):
    """A collection of records: list (every page), get, update, replace, delete."""

    def __init__(self, runner: AsyncRunner, base: Base, path: str, model: type[M]) -> None:
        self._r = runner
        self._base = base
        self._path = path
        self._model = model

    def list(self, **params: Any) -> AsyncPaginator[M]:
        """Every record, page after page; `params` are the list's query parameters (`search`,
        `sort`, `sort_by`, `per_page`...)."""
        call = Call("GET", self._base, self._path, _calls.page(self._model), params=params)
        return self._r.paginate(call)

    async def get(self, record_id: int | str) -> M:
        return await self._r.run(
            Call("GET", self._base, self._at(record_id), _calls.data(self._model))
        )

    async def update(self, record_id: int | str, **fields: Any) -> M:
        """Changes the given fields (PATCH); others keep their values."""
        call = Call("PATCH", self._base, self._at(record_id), _calls.data(self._model), body=fields)
        return await self._r.run(call)

    async def replace(self, record_id: int | str, **fields: Any) -> M:
        """Replaces the record (PUT): fields left out take their defaults."""
        call = Call("PUT", self._base, self._at(record_id), _calls.data(self._model), body=fields)
        return await self._r.run(call)

    async def delete(self, record_id: int | str) -> dict[str, Any]:
        """Deletes the record; the API's answer (`{"id": ..., "deleted": true}`)."""
        return await self._r.run(Call("DELETE", self._base, self._at(record_id), _calls.raw))

    def _at(self, record_id: int | str) -> str:
        return f"{self._path}/{record_id}"


class Records(Collection[M]):
    """A collection whose records are created as they are shown."""

    async def create(self, *, idempotency_key: str | None = None, **fields: Any) -> M:
        """Creates a record of `fields`, sent with an Idempotency-Key (a new UUID unless
        given: give the same one when trying a create again)."""
        read = _calls.data(self._model)
        return await self._r.run(
            _calls.create(self._base, self._path, read, fields, idempotency_key)
        )


class Websites(Records[analytics.Website]):
    pass


class Keys(Collection[analytics.Key]):
    async def create(
        self, *, idempotency_key: str | None = None, **fields: Any
    ) -> analytics.KeyCreated:
        """A new key: its secret is in `.key`, shown this once."""
        read = _calls.data(analytics.KeyCreated)
        return await self._r.run(
            _calls.create(self._base, self._path, read, fields, idempotency_key)
        )

    async def revoke(self, key_id: int) -> dict[str, Any]:
        return await self.delete(key_id)

    async def rotate(self, key_id: int, **fields: Any) -> analytics.KeyCreated:
        """A new secret; the old one works on for `previous_expires_in` seconds if given."""
        read = _calls.data(analytics.KeyCreated)
        return await self._r.run(
            Call("POST", self._base, f"{self._at(key_id)}/rotate", read, body=fields)
        )


class Webhooks(Collection[analytics.Webhook]):
    async def create(
        self, *, idempotency_key: str | None = None, **fields: Any
    ) -> analytics.WebhookCreated:
        """A new endpoint: its signing secret (`whsec_...`) is in `.secret`, shown this once."""
        read = _calls.data(analytics.WebhookCreated)
        return await self._r.run(
            _calls.create(self._base, self._path, read, fields, idempotency_key)
        )

    async def test(self, webhook_id: int) -> analytics.WebhookDelivery:
        """Sends a test event now; the delivery as queued."""
        read = _calls.data(analytics.WebhookDelivery)
        return await self._r.run(Call("POST", self._base, f"{self._at(webhook_id)}/test", read))

    async def rotate(self, webhook_id: int, **fields: Any) -> analytics.WebhookCreated:
        read = _calls.data(analytics.WebhookCreated)
        path = f"{self._at(webhook_id)}/rotate"
        return await self._r.run(Call("POST", self._base, path, read, body=fields))

    def deliveries(
        self, webhook_id: int, **params: Any
    ) -> AsyncPaginator[analytics.WebhookDelivery]:
        read = _calls.page(analytics.WebhookDelivery)
        path = f"{self._at(webhook_id)}/deliveries"
        return self._r.paginate(Call("GET", self._base, path, read, params=params))

    async def redeliver(self, webhook_id: int, delivery_id: str) -> analytics.WebhookDelivery:
        read = _calls.data(analytics.WebhookDelivery)
        path = f"{self._at(webhook_id)}/deliveries/{delivery_id}/redeliver"
        return await self._r.run(Call("POST", self._base, path, read))


class Exports:
    """A website's exports: started (202, then polled with `get`) and read."""

    def __init__(self, runner: AsyncRunner, website_id: int) -> None:
        self._r = runner
        self._path = f"/api/v1/websites/{website_id}/exports"

    async def create(
        self, *, idempotency_key: str | None = None, **fields: Any
    ) -> analytics.Export:
        """Starts an export of `from_` to `to` (dates); `format`, `delivery` as documented."""
        body = {k.rstrip("_"): v for k, v in fields.items()}
        read = _calls.data(analytics.Export)
        return await self._r.run(
            _calls.create("analytics", self._path, read, body, idempotency_key)
        )

    async def get(self, export_id: int) -> analytics.Export:
        read = _calls.data(analytics.Export)
        return await self._r.run(Call("GET", "analytics", f"{self._path}/{export_id}", read))


class Audits(Records[seo.Audit]):
    async def start_run(self, audit_id: int) -> seo.Audit:
        """Crawls the site again now; the audit with its new run's number and status."""
        read = _calls.data(seo.Audit)
        return await self._r.run(Call("POST", "seo", f"{self._at(audit_id)}/runs", read))

    async def runs(self, audit_id: int) -> list[seo.AuditRun]:
        """The audit's runs, newest first, each with its score, issue counts and `diff`."""
        read = _calls.items(seo.AuditRun)
        return await self._r.run(Call("GET", "seo", f"{self._at(audit_id)}/runs", read))

    async def issues(self, audit_id: int, *, run: int | None = None) -> list[seo.AuditIssue]:
        """The issues a run found (the latest run unless `run` is given)."""
        read = _calls.items(seo.AuditIssue)
        path = f"{self._at(audit_id)}/issues"
        return await self._r.run(Call("GET", "seo", path, read, params={"run": run}))

    def pages(self, audit_id: int, **params: Any) -> AsyncPaginator[seo.AuditPage]:
        """The pages a run crawled; `params`: `run`, `issue`, `status_code`, `depth`..."""
        read = _calls.page(seo.AuditPage)
        return self._r.paginate(
            Call("GET", "seo", f"{self._at(audit_id)}/pages", read, params=params)
        )

    async def diff(self, audit_id: int, *, run: int | None = None) -> seo.AuditRunDiff | None:
        """What changed in a run (the latest unless `run` is given) against the one before:
        None for a first run."""
        runs = await self.runs(audit_id)
        chosen = [r for r in runs if run is None or r.run == run]
        return max(chosen, key=lambda r: r.run).diff if chosen else None

    async def changes_csv(self, audit_id: int, run: int, *, against: int | None = None) -> bytes:
        """The run's page-level changes as CSV."""
        path = f"{self._at(audit_id)}/runs/{run}/changes.csv"
        return await self._r.run(
            Call("GET", "seo", path, _calls.content, params={"against": against})
        )


class AsyncSitelens:
    """The Sitelens APIs (analytics and SEO bases) with one key.

    `api_key` defaults to $SITELENS_API_KEY; the bases to $SITELENS_API_URL and
    $SITELENS_SEO_URL, else make serve's. `http` is an httpx client of your own (proxies,
    a transport for tests); `retries` bounds the retries of 429 and 503 answers.
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        analytics_url: str | None = None,
        seo_url: str | None = None,
        timeout: float = 30.0,
        retries: Retries | None = None,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        key = api_key or os.environ.get("SITELENS_API_KEY")
        if not key:
            raise ValueError("an API key is needed: api_key=... or $SITELENS_API_KEY")
        self._http = http or httpx.AsyncClient(timeout=timeout)
        self._http.headers.update(
            {"Authorization": f"Bearer {key}", "User-Agent": f"sitelens-client/{VERSION}"}
        )
        bases = {
            "analytics": analytics_url or os.environ.get("SITELENS_API_URL") or LOCAL_ANALYTICS,
            "seo": seo_url or os.environ.get("SITELENS_SEO_URL") or LOCAL_SEO,
        }
        self._r = AsyncRunner(self._http, bases, retries or Retries())
        self.websites = Websites(self._r, "analytics", "/api/v1/websites", analytics.Website)
        self.keys = Keys(self._r, "analytics", "/api/v1/keys", analytics.Key)
        self.webhooks = Webhooks(self._r, "analytics", "/api/v1/webhooks", analytics.Webhook)
        self.reports = Records(self._r, "seo", "/api/v1/reports", seo.Report)
        self.audits = Audits(self._r, "seo", "/api/v1/audits", seo.Audit)

    @property
    def rate_limit(self) -> RateLimit | None:
        """The account's bucket as the last answer told it (X-RateLimit-* headers)."""
        return self._r.rate_limit

    def goals(self, website_id: int) -> Records[analytics.Goal]:
        return Records(self._r, "analytics", _site(website_id, "goals"), analytics.Goal)

    def funnels(self, website_id: int) -> Records[analytics.Funnel]:
        return Records(self._r, "analytics", _site(website_id, "funnels"), analytics.Funnel)

    def segments(self, website_id: int) -> Records[analytics.Segment]:
        return Records(self._r, "analytics", _site(website_id, "segments"), analytics.Segment)

    def annotations(self, website_id: int) -> Records[analytics.Annotation]:
        path = _site(website_id, "annotations")
        return Records(self._r, "analytics", path, analytics.Annotation)

    def exports(self, website_id: int) -> Exports:
        return Exports(self._r, website_id)

    async def account(self) -> analytics.Account:
        return await self._r.run(
            Call("GET", "analytics", "/api/v1/account", _calls.data(analytics.Account))
        )

    async def usage(self, month: str | None = None) -> analytics.UsageEnvelopeData:
        """A month's billable events (`YYYY-MM`; this month when None): the account's,
        each of its workspaces', and their total."""
        read = _calls.data(analytics.UsageEnvelopeData)
        params = {} if month is None else {"month": month}
        return await self._r.run(Call("GET", "analytics", "/api/v1/usage", read, params=params))

    def stats(self, website_id: int, name: str, **params: Any) -> AsyncPaginator[analytics.StatRow]:
        """A statistic's rows (`name`: page, referrer, browser...), page after page; `params`:
        `from_`, `to`, `search`, `sort_by`, `sort`, `per_page`."""
        query = {"name": name, **{k.rstrip("_"): v for k, v in params.items()}}
        read = _calls.page(analytics.StatRow)
        path = f"/api/v1/stats/{website_id}"
        return self._r.paginate(Call("GET", "analytics", path, read, params=query))

    async def realtime(self, website_id: int) -> analytics.RealtimeEnvelopeData:
        """Visitors in the last minutes, with their pages and sources."""
        read = _calls.data(analytics.RealtimeEnvelopeData)
        return await self._r.run(
            Call("GET", "analytics", f"/api/v1/stats/{website_id}/realtime", read)
        )

    async def query(self, **body: Any) -> analytics.QueryAnswer:
        """Plausible's Stats API v2 body: `site_id`, `metrics`, `date_range`, `dimensions`..."""
        read = analytics.QueryAnswer.model_validate
        call = Call("POST", "analytics", "/api/v1/query", read, body=body, read_only=True)
        return await self._r.run(call)

    async def query_funnel(self, **body: Any) -> analytics.FunnelAnswer:
        read = analytics.FunnelAnswer.model_validate
        call = Call("POST", "analytics", "/api/v1/funnels/query", read, body=body, read_only=True)
        return await self._r.run(call)

    def projects(self, **params: Any) -> AsyncPaginator[seo.Project]:
        read = _calls.page(seo.Project)
        return self._r.paginate(Call("GET", "seo", "/api/v1/projects", read, params=params))

    async def call(self, call: Call[Any]) -> Any:
        """Sends a call this client has no method for, with its retries and errors."""
        return await self._r.run(call)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncSitelens:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _site(website_id: int, collection: str) -> str:
    return f"/api/v1/websites/{website_id}/{collection}"


__all__ = ["AsyncSitelens", "Page"]
