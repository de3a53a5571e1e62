"""A deleted website's raw events, removed from the warehouse.

Deleting a website queues its cleanup (`analytics.cleanup`), which, once its statistics are
gone, marks it deleted here (`mark`): a tombstone `deleted/pending/website_id=<id>`. The
next compaction, under its lease (no merge runs meanwhile to put a file back):

- deletes every file of the site (`site_folders`): its merged days, their summaries, its
  parts not merged yet and its parked rows; then replaces the tombstone with
  `deleted/removed/website_id=<id>`;
- while either tombstone exists, leaves the site's rows out of every merge, and out of the
  parked rows. Landing files hold every site's rows, so none is deleted for one site: a
  deleted website's rows still in landing (hits counted as it was deleted) or in
  landing-errors/ are dropped when their file is compacted or re-ingested, within the hour.

Tombstones expire with the bucket's lifecycle (`deleted/`, 90 days in template.yaml), long
after the last file that could hold such a row: landing-errors/ keeps files 31 days.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sitelens.analytics.warehouse import layout
from sitelens.core import clock
from sitelens.core.log import logger
from sitelens.data import warehouse

MAX_TOMBSTONES = 100_000  # listed per run: every site deleted in the last 90 days


def site_folders(website_id: int) -> list[str]:
    """The folders holding one website's files alone, relative to the warehouse's root."""
    return [
        f"{relation}/website_id={int(website_id)}"
        for relation in (layout.COMPACTED, layout.PARTS, *layout.SUMMARIES, layout.PARKED)
    ]


def mark(website_id: int) -> None:
    """Note that a website was deleted: the next compaction removes its files and, from now
    on, leaves its rows out (`make serve`: its folder; deployed: the events bucket)."""
    local = warehouse.local_engine()
    if local is not None:
        local.mark_deleted(layout.tombstone(website_id, layout.PENDING))
        return
    warehouse.put_text(layout.tombstone(website_id, layout.PENDING), clock.now_iso())


def _sites(paths: list[str]) -> set[int]:
    return {layout.site_of_tombstone(path) for path in paths}


def in_folder(root: Path) -> tuple[set[int], set[int]]:
    """A folder's deleted websites: those whose files are still there, and all of them."""
    pending = _sites([str(p) for p in (root / layout.DELETED / layout.PENDING).glob("*")])
    removed = _sites([str(p) for p in (root / layout.DELETED / layout.REMOVED).glob("*")])
    return pending, pending | removed


def in_bucket() -> tuple[set[int], set[int]]:
    """The bucket's deleted websites: those whose files are still there, and all of them."""
    pending = _sites(warehouse.object_keys(f"{layout.DELETED}/{layout.PENDING}/", MAX_TOMBSTONES))
    removed = _sites(warehouse.object_keys(f"{layout.DELETED}/{layout.REMOVED}/", MAX_TOMBSTONES))
    return pending, pending | removed


def remove_in_folder(root: Path, pending: set[int]) -> int:
    """Delete the files of these websites under `root` (`make serve`); how many."""
    removed = 0
    for website_id in sorted(pending):
        for folder in site_folders(website_id):
            removed += sum(1 for p in (root / folder).glob("**/*") if p.is_file())
            shutil.rmtree(root / folder, ignore_errors=True)
        done = root / layout.tombstone(website_id, layout.REMOVED)
        done.parent.mkdir(parents=True, exist_ok=True)
        done.write_text(clock.now_iso())
        (root / layout.tombstone(website_id, layout.PENDING)).unlink(missing_ok=True)
    return removed


def remove_in_bucket(pending: set[int]) -> int:
    """Delete the objects of these websites in the events bucket; how many."""
    removed = 0
    for website_id in sorted(pending):
        for folder in site_folders(website_id):
            keys = warehouse.object_keys(folder + "/", 10**7)
            warehouse.delete(keys)
            removed += len(keys)
        warehouse.put_text(layout.tombstone(website_id, layout.REMOVED), clock.now_iso())
        warehouse.delete([layout.tombstone(website_id, layout.PENDING)])
        logger.info("deleted website's warehouse files removed", extra={"website_id": website_id})
    return removed
