"""Peer: the websites routes on a Powertools `APIGatewayRestResolver` with validation on,
as its documentation shows them.

Bearer auth is a router middleware with the same cached key lookup as Sitelens; query
and body are pydantic models (`Query()` model, body parameter); return annotations make
Powertools validate and serialise the responses.
"""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError, UnauthorizedError
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from . import websites
from .websites import WebsiteCreate, WebsiteEnvelope, WebsiteListQuery, WebsitePage

app = APIGatewayRestResolver(enable_validation=True)


def bearer_auth(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response:
    scheme, _, key = (app.current_event.headers.get("authorization") or "").partition(" ")
    account = websites.authorize(key.strip()) if scheme.lower() == "bearer" else None
    if account is None:
        raise UnauthorizedError("Unauthenticated.")
    app.append_context(account=account)
    return next_middleware(app)


app.use(middlewares=[bearer_auth])


@app.get("/api/v1/websites")
def list_websites(query: Annotated[WebsiteListQuery, Query()]) -> WebsitePage:
    account = app.context["account"]
    records, cursor = websites.list_websites(account.id, query)
    event = app.current_event
    path = f"https://{event.headers.get('host')}{event.request_context.path}"
    return WebsitePage.model_validate(
        {
            "data": records,
            "links": {"next": f"{path}?cursor={cursor}" if cursor else None},
            "meta": {
                "path": path,
                "per_page": query.per_page,
                "next_cursor": cursor,
                "prev_cursor": None,
            },
            "status": 200,
        }
    )


@app.get("/api/v1/websites/<website_id>")
def get_website(website_id: Annotated[int, Path(ge=1)]) -> WebsiteEnvelope:
    record = websites.get_website(app.context["account"].id, website_id)
    if record is None:
        raise NotFoundError("Resource not found.")
    return WebsiteEnvelope.model_validate({"data": record, "status": 200})


@app.post("/api/v1/websites")
def create_website(fields: WebsiteCreate) -> Response[WebsiteEnvelope]:
    try:
        record = websites.create_website(app.context["account"].id, fields)
    except websites.DomainTaken:
        return Response(422, body={"domain": ["The domain has already been taken."]})
    body = WebsiteEnvelope.model_validate({"data": record, "status": 201})
    return Response(201, content_type="application/json", body=body)


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
