"""Where a visitor is: iptocc's shipped country data, an optional .mmdb database, and
CloudFront's viewer headers only when the operator declares CloudFront. No network."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from mmdb_writer import MMDBWriter
from netaddr import IPSet

from sitelens.analytics import visitors
from sitelens.analytics.hit import counts
from sitelens.analytics.hits import build_hit
from sitelens.core import config
from tests.fixtures import fresh

CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
)
SPOOFED = {"cloudfront-viewer-country": "KP", "cloudfront-viewer-city": "Pyongyang"}
NOWHERE = ("", "", "")
pytestmark = pytest.mark.usefixtures("fixed_salt")


@pytest.fixture(autouse=True)
def plain_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No database and no CloudFront unless a test sets them."""
    monkeypatch.delenv("SITELENS_GEOIP_DB", raising=False)
    monkeypatch.delenv("SITELENS_BEHIND_CLOUDFRONT", raising=False)
    config.reset()
    yield
    config.reset()


def where(ip: str, headers: dict[str, str] | None = None) -> tuple[str, str, str]:
    found = visitors.location(ip, headers or {})
    return (found.country, found.continent, found.city)


# Out of the box: the registry data shipped in iptocc


@pytest.mark.parametrize(
    ("ip", "expected"),
    [
        ("8.8.8.8", ("US", "NA", "")),  # Google Public DNS
        ("::ffff:8.8.8.8", ("US", "NA", "")),  # IPv4-mapped, as dual-stack servers see it
        ("2001:4860:4860::8888", ("US", "NA", "")),
        ("1.0.16.1", ("JP", "AS", "")),
        ("193.0.6.139", ("NL", "EU", "")),  # RIPE NCC
        ("200.160.2.3", ("BR", "SA", "")),  # NIC.br
        ("203.119.101.61", ("AU", "OC", "")),  # APNIC
        (" 8.8.8.8 ", ("US", "NA", "")),
    ],
)
def test_country_from_the_shipped_data(ip: str, expected: tuple[str, str, str]) -> None:
    assert where(ip) == expected


@pytest.mark.parametrize(
    "ip",
    [
        "10.0.0.1",
        "192.168.1.20",
        "172.16.5.4",
        "127.0.0.1",
        "100.64.0.1",  # carrier-grade NAT
        "169.254.1.1",
        "192.0.2.1",  # documentation ranges
        "198.51.100.20",
        "203.0.113.9",
        "0.0.0.0",
        "255.255.255.255",
        "224.0.0.1",
        "::1",
        "fe80::1",
        "fd00::1",
        "2001:db8::1",
        "::ffff:10.0.0.1",
        "not-an-ip",
        "",
    ],
)
def test_private_reserved_and_malformed_addresses_have_no_location(ip: str) -> None:
    assert where(ip) == NOWHERE


def test_blocks_registered_to_europe_as_a_whole_count_only_the_continent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # RIPE NCC registers some blocks to "EU", which is no country.
    monkeypatch.setattr("iptocc.country_code", lambda ip: "EU")
    assert where("8.8.8.8") == ("", "EU", "")


@pytest.mark.parametrize(
    ("country", "continent"),
    [("DE", "EU"), ("US", "NA"), ("BR", "SA"), ("NG", "AF"), ("JP", "AS"), ("NZ", "OC")],
)
def test_continent_of_a_country(country: str, continent: str) -> None:
    assert visitors.continent_of(country) == continent


@pytest.mark.parametrize("country", ["", "ZZ", "EU", "usa", "A"])
def test_continent_of_an_unknown_country_is_empty(country: str) -> None:
    assert visitors.continent_of(country) == ""


def test_a_hit_counts_country_and_continent() -> None:
    hit = build_hit(
        {"id": 7, "domain": "example.com", "exclude_bots": 1},
        {"page": "https://example.com/"},
        {"user-agent": CHROME},
        "8.8.8.8",
        datetime(2026, 11, 21, 9, 30, tzinfo=UTC),
    )
    assert ("country", "US", "2026-11-21") in counts(hit)
    assert ("continent", "NA", "2026-11-21") in counts(hit)
    assert "8.8.8.8" not in hit.to_json()


# CloudFront's viewer headers


def behind_cloudfront(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITELENS_BEHIND_CLOUDFRONT", "1")
    config.reset()


def test_cloudfront_headers_are_ignored_unless_declared() -> None:
    assert where("8.8.8.8", SPOOFED) == ("US", "NA", "")
    assert where("192.0.2.1", SPOOFED) == NOWHERE


def test_cloudfront_headers_when_declared(monkeypatch: pytest.MonkeyPatch) -> None:
    behind_cloudfront(monkeypatch)
    headers = {"cloudfront-viewer-country": "br", "cloudfront-viewer-city": "S%C3%A3o%20Paulo"}
    assert where("8.8.8.8", headers) == ("BR", "SA", "São Paulo")


@pytest.mark.parametrize("country", ["", "X", "USA", "1A", "ÄB"])
def test_without_a_valid_viewer_country_the_address_decides(
    monkeypatch: pytest.MonkeyPatch, country: str
) -> None:
    behind_cloudfront(monkeypatch)
    headers = {"cloudfront-viewer-country": country, "cloudfront-viewer-city": "Berlin"}
    assert where("8.8.8.8", headers) == ("US", "NA", "")


# An .mmdb database (SITELENS_GEOIP_DB)


@pytest.fixture(scope="module")
def city_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small database in the GeoLite2 City layout, written with mmdb-writer."""
    writer = MMDBWriter(
        ip_version=6,
        database_type="GeoLite2-City",
        languages=["en"],
        description="Sitelens test data",
        ipv4_compatible=True,
    )
    writer.insert_network(
        IPSet(["81.2.69.160/27"]),
        {
            "city": {"names": {"en": "London", "de": "London"}},
            "continent": {"code": "EU", "names": {"en": "Europe"}},
            "country": {"iso_code": "GB", "names": {"en": "United Kingdom"}},
        },
    )
    writer.insert_network(IPSet(["2001:480::/32"]), {"country": {"iso_code": "US"}})
    writer.insert_network(IPSet(["89.160.20.112/28"]), {"continent": {"code": "EU"}})
    path = tmp_path_factory.mktemp("geoip") / "GeoLite2-City.mmdb"
    writer.to_db_file(str(path))
    return path


@pytest.fixture
def geoip(monkeypatch: pytest.MonkeyPatch, city_db: Path) -> None:
    monkeypatch.setenv("SITELENS_GEOIP_DB", str(city_db))
    config.reset()


@pytest.mark.parametrize(
    ("ip", "expected"),
    [
        ("81.2.69.160", ("GB", "EU", "London")),
        ("81.2.69.191", ("GB", "EU", "London")),
        ("::ffff:81.2.69.160", ("GB", "EU", "London")),
        ("2001:480::1", ("US", "NA", "")),  # no continent in the record: from the country
        ("89.160.20.113", ("", "EU", "")),
        ("8.8.8.8", NOWHERE),  # not in this database: it alone answers
        ("10.0.0.1", NOWHERE),
        ("not-an-ip", NOWHERE),
    ],
)
def test_location_from_the_mmdb_database(geoip: None, ip: str, expected: tuple) -> None:
    assert where(ip, SPOOFED) == expected


def test_declared_cloudfront_headers_come_before_the_database(
    geoip: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    behind_cloudfront(monkeypatch)
    assert where("81.2.69.160", {"cloudfront-viewer-country": "FR"}) == ("FR", "EU", "")
    assert where("81.2.69.160") == ("GB", "EU", "London")


def test_the_database_is_opened_once(city_db: Path) -> None:
    visitors._mmdb_reader.cache_clear()
    try:
        assert visitors._mmdb_reader(str(city_db)) is visitors._mmdb_reader(str(city_db))
    finally:
        visitors._mmdb_reader.cache_clear()


# Settings and cold start


@pytest.mark.parametrize(("value", "expected"), [("", False), ("0", False), ("1", True)])
def test_behind_cloudfront_setting(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: bool
) -> None:
    monkeypatch.setenv("SITELENS_BEHIND_CLOUDFRONT", value)
    config.reset()
    assert config.settings().behind_cloudfront is expected


def test_behind_cloudfront_must_be_a_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITELENS_BEHIND_CLOUDFRONT", "maybe")
    config.reset()
    with pytest.raises(config.ConfigError, match="SITELENS_BEHIND_CLOUDFRONT"):
        config.settings()


def test_location_libraries_are_loaded_on_first_use_only() -> None:
    code = (
        "import sys\n"
        "from sitelens.analytics import tracking\n"
        "names = {'iptocc', 'maxminddb', 'pycountry_convert', 'pycountry'}\n"
        "print(sorted(names & set(sys.modules)))"
    )
    loaded = fresh.printed(code)
    assert loaded.strip() == "[]"
