"""Configuration from the environment, read and validated once per container.

Every value a deployed function needs (table names, queue URLs, the signing keyring or
where it is kept) is required: `require_all` runs at a
handler's cold start and names every missing variable, rather than letting a default
table name or a development secret slip into production.
Tools that need only part (the key CLI needs the accounts table) read just that part; a
missing value still fails, by name, where it is first used. A plain dataclass rather than
pydantic-settings: most handlers never load pydantic, and this must not make them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache

from sitelens.core import env
from sitelens.core.env import PREFIX, ConfigError, Networks, Ports

# A warm container trusts a key it looked up for this long, so a revoked key stops working
# everywhere within it; in the container that revokes it, at once (`auth.forget`).
DEFAULT_KEY_CACHE_SECONDS = 5.0
MAX_KEY_CACHE_SECONDS = 10.0
# Requests per second an account may make on the authenticated routes (0: no limit), and
# the burst it may save up (sitelens.accounts.limits): a script's loop fits in the burst.
DEFAULT_ACCOUNT_RATE_LIMIT = 20
DEFAULT_ACCOUNT_RATE_BURST = 100
MAX_RATE_LIMIT = 10_000  # the bounds of every token bucket's settings
MAX_RATE_BURST = 100_000
# Requests per second each client address may make on the share routes (0: no limit), and
# the burst it may save up (sitelens.sharing.limits): a reader's pages and a dashboard's
# dozen statistics at once fit; one address cannot take every share view's throughput.
DEFAULT_SHARE_RATE_LIMIT = 10
DEFAULT_SHARE_RATE_BURST = 100
# Hits per second each website may send through one event-function container, and the
# burst it may save up (sitelens.analytics.fairshare explains the sizing); 0: no share.
DEFAULT_SITE_HITS_PER_SECOND = 100
MAX_SITE_HITS_PER_SECOND = 100_000
DEFAULT_SITE_HITS_BURST = 1_000
MAX_SITE_HITS_BURST = 1_000_000
# An audit's crawl: fetches a second on one site at most (a robots.txt crawl-delay spaces
# them further), and at most this many at once on one host (sitelens.audits.crawler).
DEFAULT_AUDIT_RATE = 20
MAX_AUDIT_RATE = 1_000
DEFAULT_AUDIT_HOST_CONCURRENCY = 4
MAX_AUDIT_HOST_CONCURRENCY = 64
# Each account's fair share of the crawl workers (sitelens.audits.fairshare): fetch steps a
# second over all its runs, and the burst it may save up; 0 steps a second: no share.
DEFAULT_AUDIT_ACCOUNT_RATE = 50
MAX_AUDIT_ACCOUNT_RATE = 10_000
DEFAULT_AUDIT_ACCOUNT_BURST = 100
MAX_AUDIT_ACCOUNT_BURST = 100_000
# Each account's audits (sitelens.audits.caps), so that one account cannot fill the shared
# crawl queue: runs going at once, pages of the runs started in the last 24 hours (each
# run's max_pages) and audits with a schedule; 0: no cap.
DEFAULT_AUDIT_ACTIVE_RUNS = 3
DEFAULT_AUDIT_DAILY_PAGES = 200_000
DEFAULT_AUDIT_SCHEDULED = 20
MAX_AUDIT_CAP = 100_000_000


# The ports report fetches may reach: the web's own, so that a report cannot probe others.
DEFAULT_FETCH_PORTS = Ports(((80, 80), (443, 443)))


@dataclass(frozen=True)
class Settings:
    """The container's settings; each required one is read on first use, then kept."""

    @property
    def accounts_table(self) -> str:
        return _value("ACCOUNTS_TABLE")

    @property
    def websites_table(self) -> str:
        return _value("WEBSITES_TABLE")

    @property
    def reports_table(self) -> str:
        return _value("REPORTS_TABLE")

    @property
    def projects_table(self) -> str:
        return _value("PROJECTS_TABLE")

    @property
    def stats_table(self) -> str:
        return _value("STATS_TABLE")

    # the visitors' daily salts, in a table that no backup or restore reaches (data.salts)
    @property
    def salts_table(self) -> str:
        return _value("SALTS_TABLE")

    @property
    def hits_queue_url(self) -> str:
        return _value("HITS_QUEUE_URL")

    # HitStream=kinesis (template.yaml): the Kinesis data stream hits go to instead of the
    # hits queue; "" (the default, and make serve): the queue.
    @property
    def hits_stream(self) -> str:
        return _optional("HITS_STREAM")

    # Where the stream's aggregator parks the hits it gives up on (HitsDeadLetterQueue).
    @property
    def hits_parking_queue_url(self) -> str:
        return _value("HITS_PARKING_QUEUE_URL")

    # The low-volume tasks of system jobs, each naming its kind (`data.tasks`).
    @property
    def task_queue_url(self) -> str:
        return _value("TASK_QUEUE_URL")

    # Site audits (sitelens.audits): their records, their crawls' frontiers and pages, and
    # the queue the crawl workers share; only the audit functions are given them.
    @property
    def audits_table(self) -> str:
        return _value("AUDITS_TABLE")

    @property
    def audit_crawls_table(self) -> str:
        return _value("AUDIT_CRAWLS_TABLE")

    @property
    def audit_queue_url(self) -> str:
        return _value("AUDIT_QUEUE_URL")

    # The KMS key secrets are sealed with (`tokens.sealing`), or (lean) the SecureString
    # parameter holding the key; neither: a key derived from the keyring (make serve, tests).
    @property
    def seal_key_id(self) -> str:
        return _optional("SEAL_KEY_ID")

    @property
    def seal_key_parameter(self) -> str:
        return _optional("SEAL_KEY_PARAMETER")

    @property  # Search Console's OAuth client secret: its SecureString parameter's name
    def google_client_secret_parameter(self) -> str:
        return _optional("GOOGLE_CLIENT_SECRET_PARAMETER")

    # The function audits with `render: js` render their pages in (RenderFunction); "" (make
    # serve, tests): rendered in the crawl worker itself, on Debian's Chromium.
    @property
    def render_function(self) -> str:
        return _optional("RENDER_FUNCTION")

    # Only the webhook functions use them (and those that send events): by name at first use.
    @property
    def webhooks_table(self) -> str:
        return _value("WEBHOOKS_TABLE")

    @property
    def webhook_queue_url(self) -> str:
        return _value("WEBHOOK_QUEUE_URL")

    # Tokens must verify in every container, so all of them sign with one keyring
    # (`tokens.signing_keys`): given as such (tests), as a file (make serve's, so that a
    # rotation applies while it runs), or as the ARN of the stack's secret or the name of its
    # SecureString parameter (CostProfile=lean), read on use, so that it never sits in plain
    # text in the functions' configuration.
    @property
    def signing_keys(self) -> str:
        """The keyring itself; "" when it is kept in a file or a secret."""
        return _optional("SIGNING_KEYS")

    @property
    def signing_keys_file(self) -> str:
        return _optional("SIGNING_KEYS_FILE")

    @property
    def signing_keys_arn(self) -> str:
        return _optional("SIGNING_KEYS_ARN")

    @property
    def signing_keys_parameter(self) -> str:
        return _optional("SIGNING_KEYS_PARAMETER")

    def deprecated(self, name: str) -> str:
        """The value given under the old name of setting `name` (`DEPRECATED`), or ""."""
        return _optional(DEPRECATED[name])

    # Email digests: the sender (empty: digests are off), or a folder that catches every
    # message instead of sending it (make serve), and the base URL their links point to.
    @property
    def mail_from(self) -> str:
        return _optional("MAIL_FROM")

    @property
    def mail_outbox(self) -> str:
        return _optional("MAIL_OUTBOX")

    @property
    def mail_configuration_set(self) -> str:
        return _optional("MAIL_CONFIGURATION_SET")

    @property
    def analytics_base_url(self) -> str:
        return _value("ANALYTICS_BASE_URL").rstrip("/")

    @property
    def seo_base_url(self) -> str:
        """The SEO API's base URL, for links to audits' share pages in digests ("": none)."""
        return _optional("SEO_BASE_URL").rstrip("/")

    # The warehouse (raw events): only the functions that write or query it are given
    # these; each fails by name where it is first used.
    @property
    def events_stream(self) -> str:
        return _value("EVENTS_STREAM")

    @property
    def events_bucket(self) -> str:
        """The warehouse's bucket (landing/ and events/), read by the compaction."""
        return _value("EVENTS_BUCKET")

    @property
    def events_database(self) -> str:
        return _value("EVENTS_DATABASE")

    @property
    def athena_workgroup(self) -> str:
        return _value("ATHENA_WORKGROUP")

    @property
    def warehouse_engine(self) -> str:
        """The engine warehouse queries run on: "athena" (unset) or "clickhouse"
        (template parameter WarehouseEngine)."""
        engine = _optional("WAREHOUSE_ENGINE") or "athena"
        if engine not in ("athena", "clickhouse"):
            raise ConfigError(f"SITELENS_WAREHOUSE_ENGINE is {engine!r}: athena or clickhouse.")
        return engine

    @property
    def clickhouse_secret(self) -> str:
        """The ARN of the secret holding ClickHouse's address and credentials (JSON: host,
        port, username, password, database, secure)."""
        return _value("CLICKHOUSE_SECRET")

    @property
    def clickhouse_counted_sites(self) -> frozenset[int]:
        """Websites counted in ClickHouse, not DynamoDB (ClickHouseCountedSites, ids and
        commas; only under WarehouseEngine=clickhouse): `data.clickhouse_counts`."""
        listed = _optional("CLICKHOUSE_COUNTED_SITES")
        if not listed or self.warehouse_engine != "clickhouse":
            return frozenset()
        if not all(found.strip().isdigit() for found in listed.split(",")):
            raise ConfigError(f"SITELENS_CLICKHOUSE_COUNTED_SITES is {listed!r}: ids, commas.")
        return frozenset(int(found) for found in listed.split(","))

    @property
    def clickhouse_s3_role(self) -> str:
        """The IAM role ClickHouse assumes to read the landing files ("": its own access,
        a self-managed server's instance role)."""
        return _optional("CLICKHOUSE_S3_ROLE")

    # The name server domain proofs ask for TXT records (`host` or `host:port`; "" for the
    # system's): a stub server in tests, any resolver under make serve (sitelens.domains).
    @property
    def dns_nameserver(self) -> str:
        return _optional("DNS_NAMESERVER")

    allow_private_urls: bool = False  # report fetches may reach private addresses (dev only)
    geoip_db: str = ""  # path of a MaxMind/DB-IP .mmdb; "" for the country data of iptocc
    # path of a file of data-centre and cloud ranges (one CIDR a line); "" for no such rule
    datacenter_ranges: str = ""
    # Any client can send CloudFront-Viewer-* headers: they are read only when the operator
    # declares that a CloudFront distribution adding them sits in front of the API.
    behind_cloudfront: bool = False
    # CostProfile=lean: a hit accepted or excluded writes no line (no HitsAccepted or
    # HitsExcluded metric: the counters have both); only losses (dropped, throttled) do
    # The addresses of proxies whose X-Forwarded-For names the visitor (`edge.http`): the
    # first-party proxies of docs/proxying.md. Empty: every request's own address is its
    # client's, whatever it forwards.
    trusted_proxies: Networks = ()
    key_cache_seconds: float = DEFAULT_KEY_CACHE_SECONDS
    account_rate_limit: int = DEFAULT_ACCOUNT_RATE_LIMIT
    account_rate_burst: int = DEFAULT_ACCOUNT_RATE_BURST
    share_rate_limit: int = DEFAULT_SHARE_RATE_LIMIT
    share_rate_burst: int = DEFAULT_SHARE_RATE_BURST
    site_hits_per_second: int = DEFAULT_SITE_HITS_PER_SECOND
    site_hits_burst: int = DEFAULT_SITE_HITS_BURST
    fetch_ports: Ports = DEFAULT_FETCH_PORTS  # others for local sites (make serve)
    audit_rate: int = DEFAULT_AUDIT_RATE
    audit_host_concurrency: int = DEFAULT_AUDIT_HOST_CONCURRENCY
    audit_account_rate: int = DEFAULT_AUDIT_ACCOUNT_RATE
    audit_account_burst: int = DEFAULT_AUDIT_ACCOUNT_BURST
    audit_active_runs: int = DEFAULT_AUDIT_ACTIVE_RUNS
    audit_daily_pages: int = DEFAULT_AUDIT_DAILY_PAGES
    audit_scheduled: int = DEFAULT_AUDIT_SCHEDULED


# One entry per setting; a tuple is a setting given by any one of its variables.
REQUIRED: tuple[str | tuple[str, ...], ...] = (
    "ACCOUNTS_TABLE",
    "WEBSITES_TABLE",
    "REPORTS_TABLE",
    "PROJECTS_TABLE",
    "STATS_TABLE",
    "SALTS_TABLE",
    ("HITS_QUEUE_URL", "HITS_STREAM"),  # where hits go: the queue, or the stream
    "TASK_QUEUE_URL",
    ("SIGNING_KEYS", "SIGNING_KEYS_FILE", "SIGNING_KEYS_ARN", "SIGNING_KEYS_PARAMETER"),
)
# The names settings had before, still read (once, with a warning: `tokens.signing_keys`).
DEPRECATED = {"SIGNING_KEYS": "CURSOR_SECRET", "SIGNING_KEYS_ARN": "CURSOR_SECRET_ARN"}


@cache
def _value(name: str) -> str:
    return env.required(name)


@cache
def _optional(name: str) -> str:
    return os.environ.get(PREFIX + name, "").strip()


def _rate(name: str, default_rate: int, default_burst: int) -> tuple[int, int]:
    """A token bucket's `<name>_LIMIT` a second and `<name>_BURST`."""
    rate = env.count(f"{name}_LIMIT", default_rate, MAX_RATE_LIMIT)
    burst = env.count(f"{name}_BURST", default_burst, MAX_RATE_BURST)
    if rate and not burst:  # a bucket that holds no request would refuse every one
        raise ConfigError(f"{PREFIX}{name}_BURST must be at least 1 when there is a limit.")
    return rate, burst


def _site_share() -> tuple[int, int]:
    rate = env.count("SITE_HITS_PER_SECOND", DEFAULT_SITE_HITS_PER_SECOND, MAX_SITE_HITS_PER_SECOND)
    burst = env.count("SITE_HITS_BURST", DEFAULT_SITE_HITS_BURST, MAX_SITE_HITS_BURST)
    if rate and not burst:  # a bucket that holds no hit would refuse every one
        raise ConfigError(f"{PREFIX}SITE_HITS_BURST must be at least 1 when hits are shared.")
    return rate, burst


@cache
def settings() -> Settings:
    """The container's settings; tests call `reset()` after changing the environment."""
    site_hits_per_second, site_hits_burst = _site_share()
    account_rate_limit, account_rate_burst = _rate(
        "ACCOUNT_RATE", DEFAULT_ACCOUNT_RATE_LIMIT, DEFAULT_ACCOUNT_RATE_BURST
    )
    share_rate_limit, share_rate_burst = _rate(
        "SHARE_RATE", DEFAULT_SHARE_RATE_LIMIT, DEFAULT_SHARE_RATE_BURST
    )
    return Settings(
        allow_private_urls=env.flag("ALLOW_PRIVATE_URLS"),
        geoip_db=os.environ.get(PREFIX + "GEOIP_DB", "").strip(),
        datacenter_ranges=os.environ.get(PREFIX + "DATACENTER_RANGES", "").strip(),
        behind_cloudfront=env.flag("BEHIND_CLOUDFRONT"),
        trusted_proxies=env.networks("TRUSTED_PROXIES"),
        key_cache_seconds=env.seconds(
            "KEY_CACHE_SECONDS", DEFAULT_KEY_CACHE_SECONDS, MAX_KEY_CACHE_SECONDS
        ),
        account_rate_limit=account_rate_limit,
        account_rate_burst=account_rate_burst,
        share_rate_limit=share_rate_limit,
        share_rate_burst=share_rate_burst,
        site_hits_per_second=site_hits_per_second,
        site_hits_burst=site_hits_burst,
        fetch_ports=env.ports("FETCH_PORTS", DEFAULT_FETCH_PORTS),
        audit_rate=env.count("AUDIT_RATE", DEFAULT_AUDIT_RATE, MAX_AUDIT_RATE)
        or DEFAULT_AUDIT_RATE,
        audit_host_concurrency=env.count(
            "AUDIT_HOST_CONCURRENCY", DEFAULT_AUDIT_HOST_CONCURRENCY, MAX_AUDIT_HOST_CONCURRENCY
        )
        or 1,
        audit_account_rate=env.count(
            "AUDIT_ACCOUNT_RATE", DEFAULT_AUDIT_ACCOUNT_RATE, MAX_AUDIT_ACCOUNT_RATE
        ),
        audit_account_burst=env.count(
            "AUDIT_ACCOUNT_BURST", DEFAULT_AUDIT_ACCOUNT_BURST, MAX_AUDIT_ACCOUNT_BURST
        )
        or 1,
        audit_active_runs=env.count("AUDIT_ACTIVE_RUNS", DEFAULT_AUDIT_ACTIVE_RUNS, MAX_AUDIT_CAP),
        audit_daily_pages=env.count("AUDIT_DAILY_PAGES", DEFAULT_AUDIT_DAILY_PAGES, MAX_AUDIT_CAP),
        audit_scheduled=env.count("AUDIT_SCHEDULED", DEFAULT_AUDIT_SCHEDULED, MAX_AUDIT_CAP),
    )


def require_all() -> Settings:
    """Every setting, checked now (a handler's cold start): ConfigError names each missing one."""
    missing = []
    for entry in REQUIRED:
        names = entry if isinstance(entry, tuple) else (entry,)
        given = names + tuple(DEPRECATED[name] for name in names if name in DEPRECATED)
        if not any(os.environ.get(PREFIX + name, "").strip() for name in given):
            missing.append(" or ".join(PREFIX + name for name in names))
    if missing:
        raise ConfigError(f"Missing environment variables: {', '.join(missing)}.")
    return settings()


def reset() -> None:
    """Read the environment again (tests)."""
    settings.cache_clear()
    _value.cache_clear()
    _optional.cache_clear()
