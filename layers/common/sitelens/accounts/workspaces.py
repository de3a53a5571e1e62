"""Workspaces: per-client sub-accounts of an agency. A workspace is an account of its own
(its websites, projects, reports, audits, keys, webhooks and members live in its own
partition, isolated as every account is), listed under the agency that made it.

A request reaches a workspace in one of two ways, and no other:
- with a key of the workspace (made in it: its own account's);
- with an agency key and the header `Sitelens-Workspace: <id>` naming a workspace of the
  key's account (`enter`): the request runs as the workspace, with the key's member's role
  in the agency and its access; a key limited to websites or projects may not (403), and a
  workspace of another agency, or no workspace, is 404.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sitelens.accounts.keys import Account, get_account
from sitelens.core import clock, errors, numbers
from sitelens.data import accounts as stored_accounts
from sitelens.data import workspaces as stored
from sitelens.records import listing

if TYPE_CHECKING:
    from sitelens.accounts.keyring import Grant
    from sitelens.records.inputs import PageQuery

HEADER = "sitelens-workspace"  # lower case, as the edge holds headers
MAX_WORKSPACES = 100  # an agency's: one Query lists them


class NestedWorkspace(errors.Forbidden):
    message = "A workspace cannot have workspaces of its own."


def parent_of(account_id: str) -> str | None:
    """The agency a workspace belongs to; None for an agency (an account of its own)."""
    found = stored_accounts.get_account(account_id)
    parent = found.get("parent") if found else None
    return None if parent is None else str(parent)


def show(entry: dict[str, Any]) -> dict[str, Any]:
    return {"id": int(entry["id"]), "name": entry["name"], "created_at": entry["created_at"]}


def create(agency: Account, name: str) -> dict[str, Any]:
    """A new workspace of the agency; 403 from within a workspace, 422 past the cap."""
    if parent_of(agency.id) is not None:
        raise NestedWorkspace()
    workspace_id = str(stored_accounts.next_id("accounts"))
    created_at = clock.now_iso()
    if not stored.put(agency.id, workspace_id, name, created_at, MAX_WORKSPACES):
        sentence = f"An account may have at most {MAX_WORKSPACES} workspaces."
        raise errors.Invalid.field("name", sentence)
    return show({"id": workspace_id, "name": name, "created_at": created_at})


def list_page(agency: Account, query: PageQuery) -> listing.Page:
    """One page of the agency's workspaces by id."""
    rows = [show(w) for w in stored.of_agency(agency.id)]
    return listing.id_page(rows, agency.id, "workspaces", query)


def enter(grant: Grant, named: str) -> Grant:
    """The grant of an agency key within the workspace the header names: the workspace's
    account, the key's member, role and scope, and `via` the agency. 404 for anything but
    a workspace of the key's account; 403 for a key limited to websites or projects."""
    workspace_id = numbers.record_id(named.strip())
    if workspace_id is None:
        raise errors.NotFound()
    if grant.scope.limited:
        raise errors.Forbidden()
    if parent_of(str(workspace_id)) != grant.account.id:
        raise errors.NotFound()
    workspace = get_account(str(workspace_id))
    if workspace is None:
        raise errors.NotFound()
    return replace(grant, account=workspace, via=grant.account.id)
