"""Peer: the websites routes on FastAPI behind Mangum, as its documentation shows them.

Bearer auth is a `Security(HTTPBearer())` dependency with the same cached key lookup as
Sitelens; query and body are pydantic models; responses go through `response_model`.
Endpoints are `async def` (Mangum's own examples; no thread pool hop per request).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from mangum import Mangum

from . import websites
from .websites import Account, WebsiteCreate, WebsiteEnvelope, WebsiteListQuery, WebsitePage

app = FastAPI(title="Websites")
bearer = HTTPBearer()


async def current_account(
    credentials: Annotated[HTTPAuthorizationCredentials, Security(bearer)],
) -> Account:
    account = websites.authorize(credentials.credentials)
    if account is None:
        raise HTTPException(401, "Unauthenticated.", headers={"WWW-Authenticate": "Bearer"})
    return account


CurrentAccount = Annotated[Account, Depends(current_account)]


@app.get("/api/v1/websites", response_model=WebsitePage)
async def list_websites(
    request: Request, query: Annotated[WebsiteListQuery, Query()], account: CurrentAccount
) -> dict:
    records, cursor = websites.list_websites(account.id, query)
    path = str(request.url.remove_query_params("cursor"))
    return {
        "data": records,
        "links": {"next": str(request.url.include_query_params(cursor=cursor)) if cursor else None},
        "meta": {
            "path": path,
            "per_page": query.per_page,
            "next_cursor": cursor,
            "prev_cursor": None,
        },
        "status": 200,
    }


@app.get("/api/v1/websites/{website_id}", response_model=WebsiteEnvelope)
async def get_website(website_id: Annotated[int, Path(ge=1)], account: CurrentAccount) -> dict:
    record = websites.get_website(account.id, website_id)
    if record is None:
        raise HTTPException(404, "Resource not found.")
    return {"data": record, "status": 200}


@app.post("/api/v1/websites", status_code=201, response_model=WebsiteEnvelope)
async def create_website(fields: WebsiteCreate, account: CurrentAccount) -> dict:
    try:
        record = websites.create_website(account.id, fields)
    except websites.DomainTaken:
        raise HTTPException(422, {"domain": ["The domain has already been taken."]}) from None
    return {"data": record, "status": 201}


handler = Mangum(app, lifespan="off")
