"""Configuration from the environment, read and validated once per container."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Settings:
    accounts_table: str
    websites_table: str
    reports_table: str
    projects_table: str
    stats_table: str
    hits_queue_url: str
    cleanup_queue_url: str
    cursor_secret: bytes
    allow_private_urls: bool
    geoip_db: str
    key_cache_seconds: float


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


@cache
def settings() -> Settings:
    """The container's settings; tests call `settings.cache_clear()` after changing env."""
    env = os.environ.get
    return Settings(
        accounts_table=env("SITELENS_ACCOUNTS_TABLE", "sitelens-accounts"),
        websites_table=env("SITELENS_WEBSITES_TABLE", "sitelens-websites"),
        reports_table=env("SITELENS_REPORTS_TABLE", "sitelens-reports"),
        projects_table=env("SITELENS_PROJECTS_TABLE", "sitelens-projects"),
        stats_table=env("SITELENS_STATS_TABLE", "sitelens-stats"),
        hits_queue_url=env("SITELENS_HITS_QUEUE_URL", ""),
        cleanup_queue_url=env("SITELENS_CLEANUP_QUEUE_URL", ""),
        # Cursors must verify in every container, so the deployed stack passes one secret.
        cursor_secret=env("SITELENS_CURSOR_SECRET", "sitelens-development-secret").encode(),
        allow_private_urls=_flag("SITELENS_ALLOW_PRIVATE_URLS"),
        geoip_db=env("SITELENS_GEOIP_DB", ""),
        key_cache_seconds=float(env("SITELENS_KEY_CACHE_SECONDS", "30")),
    )
