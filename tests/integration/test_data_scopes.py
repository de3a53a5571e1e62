"""Every function of `sitelens.data` that returns records, found by introspection, read
under a key limited to one website and one project: it answers only those (and, under the
system's scope, the others too, so the read is shown to find them). A function added to
`sitelens.data` fails `test_every_data_function_is_walked_or_says_why_not` until it is
listed here: as a read of records, with how to call it, or with the reason it is none."""

from __future__ import annotations

import contextvars
import importlib
import inspect
import pkgutil
from collections.abc import Callable
from typing import Any

import pytest

import sitelens.data
from sitelens.core import errors, hosts, scopes
from sitelens.data import (
    annotations,
    audits,
    brands,
    pages,
    projects,
    recipients,
    records,
    reports,
    websites,
)
from tests.integration.keys.test_scopes import world
from tests.integration.test_reports import private_urls

__all__ = ["private_urls", "world"]  # fixtures, used by name

World = dict[str, Any]
# A read of records: how to call it in the world for one side ("mine" or "theirs"); it
# answers something for a side it sees (a record, a list, True) and nothing for another.
Read = Callable[[World, str], Any]


def _site(world: World, side: str) -> str:
    return hosts.site(world[side]["domain"])


def _listing(collection: records.Collection, world: World, side: str) -> list[Any]:
    listing = pages.Listing(order=collection.key, ascending=True, filters={})
    found = pages.page(collection, world["account"], listing, None, 100).records
    wanted = (
        world[side]["id"] if collection is websites.COLLECTION else world[f"{side}_report"]["id"]
    )
    return [r for r in found if r["id"] == wanted]


def _annotation(world: World, side: str) -> Any:
    return annotations.get(world["account"], world[side]["id"], world[f"{side}_note"]["id"])


def _brand(world: World, side: str) -> Any:
    """A project's brand, set (unscoped: the routes' paths are checked at the edge) and read."""
    owner = brands.project_owner(world[f"{side}_report"]["project"])
    brands.put(world["account"], owner, {"name": side, "updated_at": "2026-11-01T00:00:00Z"})
    return brands.get(world["account"], owner)


def _recipient_target(world: World, side: str) -> str:
    """A client recipient of the side's website, added (unscoped, as `_brand`)."""
    target = f"website:{world[side]['id']}"
    recipients.add(world["account"], target, side * 4, f"{side}@client.example", "2026-11-01")
    return target


def _unchanged(record: dict[str, Any]) -> dict[str, Any]:
    return record


READS: dict[str, Read] = {
    "records.get": lambda w, s: records.get(websites.COLLECTION, w["account"], w[s]["id"]),
    "records.update": lambda w, s: records.update(
        websites.COLLECTION, w["account"], w[s]["id"], _unchanged
    ),
    "pages.page": lambda w, s: (
        _listing(websites.COLLECTION, w, s) + _listing(reports.COLLECTION, w, s)
    ),
    "websites.get": lambda w, s: websites.get(w["account"], w[s]["id"]),
    "websites.get_as_stored": lambda w, s: websites.get_as_stored(w["account"], w[s]["id"]),
    "websites.by_domain": lambda w, s: websites.by_domain(_site(w, s)),
    "websites.by_host": lambda w, s: websites.by_host(_site(w, s)),
    "websites.exists": lambda w, s: websites.exists(w["account"], w[s]["id"]),
    "websites.of_account": lambda w, s: [
        r for r in websites.of_account(w["account"]) if r["id"] == w[s]["id"]
    ],
    "websites.update": lambda w, s: websites.update(
        w["account"], w[s]["id"], _unchanged, _site(w, s)
    ),
    "reports.get": lambda w, s: reports.get(w["account"], w[f"{s}_report"]["id"]),
    "reports.by_share_id": lambda w, s: reports.by_share_id(w[f"{s}_report_share_id"]),
    "reports.update_with_project": lambda w, s: reports.update_with_project(
        w["account"], w[f"{s}_report"]["id"], _unchanged
    ),
    "projects.exists": lambda w, s: projects.exists(w["account"], w[f"{s}_report"]["project"]),
    "audits.get": lambda w, s: audits.get(w["account"], w[f"{s}_audit"]["id"]),
    "audits.by_share_id": lambda w, s: audits.by_share_id(w[f"{s}_audit_share_id"]),
    "audits.of_account": lambda w, s: [
        a for a in audits.of_account(w["account"], 100) if a["id"] == w[f"{s}_audit"]["id"]
    ],
    "audits.update": lambda w, s: audits.update(w["account"], w[f"{s}_audit"]["id"], _unchanged),
    "annotations.get": _annotation,
    "brands.get": _brand,
    "recipients.get": lambda w, s: recipients.get(w["account"], _recipient_target(w, s), s * 4),
    "recipients.of_target": lambda w, s: recipients.of_target(
        w["account"], _recipient_target(w, s), 10
    ),
    "recipients.of_account": lambda w, s: (
        (target := _recipient_target(w, s))
        and [r for r in recipients.of_account(w["account"], 100) if r["target"] == target]
    ),
    "brands.many": lambda w, s: (
        _brand(w, s)
        and any(brands.many(w["account"], [brands.project_owner(w[f"{s}_report"]["project"])]))
    ),
    "annotations.of_website": lambda w, s: annotations.of_website(w["account"], w[s]["id"]),
    "annotations.update": lambda w, s: annotations.update(
        w["account"], w[s]["id"], w[f"{s}_note"]["id"], _unchanged
    ),
}
# Reads of records whose proof is a write's (test_a_limited_key_creates_and_deletes_nothing_else):
# they answer the record they removed or made.
WRITES = {
    "records.create": "raises Forbidden outside the scope",
    "records.delete": "reads with records.get first",
    "websites.create_with_claim": "records.create",
    "websites.delete_with_claim": "records.delete",
    "websites.rename": "records.update, which reads with records.get first",
    "reports.create_with_project": "records.create",
    "reports.delete_with_project": "records.delete",
    "audits.create": "records.create",
    "audits.delete": "records.delete",
    "annotations.create": "records.create",
    "annotations.delete": "records.delete",
}
# Everything else, by module: why it is no read of an account's website or project records.
NOT_RECORDS: dict[str, tuple[str, str]] = {
    "records": (
        "allocate_id claim_key claim_entry release_entry delete_entry get_claim id_suffixed "
        "cut_bytes version_attempts stored",
        "ids, claims and transaction entries; `stored` is the one read as stored, for the "
        "websites caches, which scope what they hand out (websites.by_host, exists)",
    ),
    "pages": ("position", "a cursor's position of a record already read"),
    "renderers": ("render", "invokes the render function with a page's URL: reads no records"),
    "websites": (
        "allocate_id is_claimed forget forget_all get_claim holder proof_token "
        "stored_proof_token move_claim versioned answers renamed_note",
        "ids, claims, caches, rename notes (an old domain's holder: the share view reads it "
        "with websites.get, scoped) and an account's proof tokens; a proof's move writes websites "
        "domains.claims read first with websites.get (scoped)",
    ),
    "reports": ("allocate_id delete_project_chunk", "ids; a project's deletion, in writes"),
    "projects": (
        "created_sort change leave drop_if_empty",
        "a project row's sort key and the writes that go with its reports",
    ),
    "annotations": ("partition allocate_id", "key shapes and ids"),
    "recipients": (
        "add confirm remove",
        "writes: the routes read the website or audit first (scoped), the links are signed",
    ),
    "brands": (
        "project_owner put delete put_logo get_logo",
        "a brand's key and writes (the routes check the project at the edge); logos are "
        "addressed by their bytes' hash, public as the share pages that show them",
    ),
    "audits": (
        "allocate_id due crawl_key item_key start state set_state count pages_after pages_of "
        "every_page "
        "save_issues issues save_affected affected send",
        "ids of due audits, for the scheduler, which reads each with audits.get (scoped); "
        "a run's crawl, keyed by `crawl_key` of an audit read first with audits.get (scoped)",
    ),
    "audit_columns": (
        "save_orders order_part pages_by_url texts save_clusters clusters",
        "a run's orders, pages and clusters, keyed by `crawl_key` of an audit read first "
        "with audits.get (scoped)",
    ),
    "frontier": (
        "claim_page save_page is_fetched finish_pages",
        "a run's crawl frontier, written by its workers",
    ),
    "audit_usage": ("usage replace schedules", "the account's crawl allowance and schedules"),
    "exports": (
        "create get set_fields site_files object_key store download_url local_path",
        "an export's own record, in the account's `#export:` partition: `get` answers None "
        "when the key's scope does not admit its website (tests/integration/exports); files",
    ),
    "search_console": (
        "put get set_fields delete connected site_folder day_key put_day delete_rows local_files",
        "a website's Search Console connection, in the account's `#searchconsole:` partition "
        "(`get` answers None when the key's scope does not admit its website), the daily "
        "run's list of them, and the imported rows' files",
    ),
    "customer_buckets": (
        "deliver fetch delivery_failed",
        "a write to (or a read of) the customer's own bucket, and its logs read (`Reader`), "
        "as their role",
    ),
    "imports": (
        "create get of_website set_fields remove local_root upload_key put_upload "
        "fetch_upload drop_upload table_key store_table table_files clickhouse_files drop_tables",
        "an import's own record, in the account's `#import:` partition: `get` and "
        "`of_website` answer only what the key's scope admits (tests/integration/imports); "
        "files",
    ),
    "crawl_sources": (
        "put get delete every",
        "a website's log source, in the partition `#crawl-sources`: `get` (and `delete` "
        "through it) answers None for another account's or a website the key's scope does "
        "not admit; `every` raises outside the system scope (tests/integration/crawls)",
    ),
    "accounts": (
        "next_id put_account get_account set_contact mailed_accounts mailed_now digest_claims "
        "claim_digest take_over_digest record_digest",
        "the account itself and its digests' claims: no website's or project's",
    ),
    "keys": (
        "put put_writes lookup of_account get listed revoke rotate touch",
        "the account's keys: read by auth, managed on account-wide routes only (edge.auth)",
    ),
    "members": (
        "get of_account adopt_founder next_id get_invitation put_invitation accept set_role remove"
        " next_invitation_id invitations_of delete_invitation",
        "the account's members and invitations: read by auth, managed on account-wide routes "
        "only (edge.auth: a limited key is refused them), the invitation by its signed link",
    ),
    "workspaces": (
        "put of_agency",
        "an agency's list of its workspaces (accounts of their own): account-wide routes only",
    ),
    "audit_log": (
        "entry_put put page",
        "the account's audit log: written after changes, read on account-wide routes only",
    ),
    "guests": (
        "add get of_key delete",
        "a key's guest links: managed on account-wide routes only (edge.auth)",
    ),
    "webhooks": (
        "next_endpoint_id add_endpoint put_endpoint mark_failing clear_failing "
        "disable_failing get_endpoint endpoints delete_endpoint put_delivery "
        "restart_delivery get_delivery deliveries enqueue add_delivery finish_delivery "
        "close_stale first_open take_lane free_lane",
        "account-wide endpoints (each with its own reach, webhooks.endpoints.reach), managed "
        "on account-wide routes only; events read them for every key's change",
    ),
    "goals": ("of change", "goals inside a website record already read (scoped)"),
    "funnels": ("of change", "funnels inside a website record already read (scoped)"),
    "segments": ("of change", "segments inside a website record already read (scoped)"),
    "stats": (
        "digest slot counter_key counter_item add_chunk mark_committed registries register counts "
        "daily_counts span_counts many_counts write_batch",
        "statistics of a website id whose record was read first (scoped), or the aggregator's",
    ),
    "traffic": (
        "note_active active hourly_pageviews alert_state judge_hour",
        "traffic alerts' counters, read by their schedule",
    ),
    "months": (
        "note noted states span_states start_rewrite replace finish",
        "month roll-ups of a website read first (scoped), or of the daily job (system)",
    ),
    "realtime": (
        "put put_flush since",
        "presences of a website, written by its hits, read first (scoped)",
    ),
    "conversions": ("add websites_of claim done", "goal conversions' counters, for a schedule"),
    "dashboards": (
        "get put spend claim release",
        "cached figures of a website read first (scoped)",
    ),
    "cleanups": ("progress remove pending", "a deleted website's statistics, removed"),
    "ledger": ("record_deliveries record_skipped deliveries committed", "the hits' ledger"),
    "batches": ("get write send", "batched reads and writes for the modules above"),
    "buckets": ("units seconds held retry_after reserve forget", "rate buckets"),
    "caps": ("add_within", "counters with a cap"),
    "clients": ("client use reset every_item", "AWS clients and paging"),
    "digest_queue": ("send digest_of", "queue messages"),
    "items": (
        "to_attr from_attr to_item from_item error_code is_condition_failure cancel_reasons",
        "DynamoDB attribute values and errors",
    ),
    "limits": ("take give_back held_for fail succeed forget", "rate limits"),
    "mail": ("send", "email"),
    "queues": (
        "send_hit park_hit hit_account send_cleanup cleanup_website receive_hits "
        "delete_hits receive_tasks delete_tasks send_export export_task send_import import_task "
        "send_search_console_import search_console_task",
        "queue messages",
    ),
    "drains": ("receive delete drain lambda_record", "queue messages, drained on a schedule"),
    "hit_stream": ("put is_stream_batch read", "stream records"),
    "salts": ("expires_at for_day forget", "the daily salts"),
    "secrets": (
        "secret_string file_string put_file_string put_secret_string parameter_string "
        "kept_parameter_string put_parameter_string",
        "the signing keyring and the seal key, in Secrets Manager, SSM or a file",
    ),
    "slots": ("reserve_host reserve_account send_later", "politeness slots of hosts"),
    "tasks": ("body kind_of", "task messages' kinds"),
    "transactions": ("write attempts backoff item_size", "transactions"),
    "warehouse": (
        "object_keys download upload delete use dialect run put put_text local_engine pack "
        "documents",
        "the events warehouse, queried for a website read first (scoped)",
    ),
    "leases": ("acquire release", "the compaction's lease: one item, no account's"),
    "clickhouse": (
        "run command stopped_by_limits use landing bucket_files",
        "the events warehouse on ClickHouse, queried for a website read first (scoped)",
    ),
    "checkpoints": ("last advance", "a scheduled job's progress: one item, no account's"),
    "crawls": ("put", "crawl rows' files of a website whose record was read first (scoped)"),
    "clickhouse_counts": (
        "counted create_statements insert_statement insert span_counts presences",
        "counters and presences in ClickHouse of a website id whose record was read first "
        "(scoped), or the aggregator's",
    ),
}


def data_functions() -> set[str]:
    """`module.function` of every public function defined in a module of sitelens.data."""
    found = set()
    for info in pkgutil.iter_modules(sitelens.data.__path__):
        module = importlib.import_module(f"sitelens.data.{info.name}")
        for name, value in vars(module).items():
            function = inspect.unwrap(value) if callable(value) else None  # @cache-d too
            defined_here = inspect.isfunction(function) and function.__module__ == module.__name__
            if defined_here and not name.startswith("_"):
                found.add(f"{info.name}.{name}")
    return found


def test_every_data_function_is_walked_or_says_why_not():
    listed = set(READS) | set(WRITES)
    for module, (names, _) in NOT_RECORDS.items():
        listed |= {f"{module}.{name}" for name in names.split()}
    found = data_functions()
    assert sorted(found - listed) == [], "list each: a read of records (READS) or why not"
    assert sorted(listed - found) == [], "listed, but no such function"


LIMITED = {"websites": "mine", "projects": "mine"}


@pytest.fixture
def scoped_world(world, seo, analytics, site, account) -> World:
    """`world`'s two websites and two reports, an annotation of each website, and a weekly
    audit in each project; and the key's scope: the first website and project."""
    found: World = {**world, "account": account.id}
    for side in ("mine", "theirs"):
        found[f"{side}_note"] = analytics.post(
            f"/api/v1/websites/{world[side]['id']}/annotations",
            {"date": "2026-11-01", "text": side},
        ).data
        url = world[f"{side}_report"]["url"]
        audit = seo.post("/api/v1/audits", {"url": url, "schedule": "weekly"})
        assert audit.status == 201, audit.body
        found[f"{side}_audit"] = audit.data
        found[f"{side}_audit_share_id"] = audits.get(account.id, audit.data["id"])["share_id"]
        found[f"{side}_report_share_id"] = reports.get(account.id, world[f"{side}_report"]["id"])[
            "share_id"
        ]
    found["scope"] = scopes.Scope(
        "write",
        websites=frozenset({world["mine"]["id"]}),
        projects=frozenset({world["mine_report"]["project"]}),
    )
    return found


@pytest.mark.parametrize("name", sorted(READS))
def test_a_limited_key_reads_only_its_websites_and_projects(scoped_world, name):
    read = READS[name]
    assert read(scoped_world, "mine") and read(scoped_world, "theirs")  # the system sees both
    with scopes.within(scoped_world["scope"]):
        assert read(scoped_world, "mine"), name
        assert not read(scoped_world, "theirs"), name


def test_a_limited_key_creates_and_deletes_nothing_else(scoped_world):
    account, theirs = scoped_world["account"], scoped_world["theirs"]
    with scopes.within(scoped_world["scope"]):
        with pytest.raises(errors.Forbidden):
            websites.create_with_claim(
                {"account": account, "id": websites.allocate_id(), "domain": "new.example"},
                "new.example",
            )
        assert (
            websites.delete_with_claim(account, theirs["id"], _site(scoped_world, "theirs")) is None
        )
        assert audits.delete(account, scoped_world["theirs_audit"]["id"]) is None
    assert websites.get(account, theirs["id"]) is not None
    assert audits.get(account, scoped_world["theirs_audit"]["id"]) is not None
    assert websites.is_claimed("new.example") is False


@pytest.mark.parametrize("name", sorted(READS))
def test_every_read_outside_a_scope_answers_nothing(scoped_world, name):
    with pytest.raises(scopes.Undeclared):
        contextvars.Context().run(READS[name], scoped_world, "mine")
