"""What a websites request may carry: create, update and list inputs."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator, ValidationInfo

from sitelens.core.errors import FieldError
from sitelens.records.inputs import Flag, ListQuery, PrivacyFields, choice, lines
from sitelens.websites import rules


def _domain(value: Any, info: ValidationInfo) -> str:
    if not isinstance(value, str):
        raise FieldError(rules.INVALID_DOMAIN)
    host = rules.normalize_domain(value)
    # Shown in the script it was typed in: `bücher.de` stays Unicode, `xn--...` punycode.
    return host.site if value.isascii() else host.site_name


Domain = Annotated[str, BeforeValidator(_domain)]
ExcludeIps = Annotated[str, lines(rules.check_ip_line)]
ExcludeParams = Annotated[str, lines(rules.check_param_line)]
Timezone = Annotated[str, BeforeValidator(rules.check_timezone)]
# 0: no traffic alerts; otherwise the factor an hour must be off its baseline by
TrafficAlerts = Annotated[int, choice(*rules.TRAFFIC_ALERTS)]


class WebsiteSettings(PrivacyFields):
    """Fields shared by create and update; None means "not sent"."""

    email: Flag | None = None
    exclude_bots: Flag | None = None
    exclude_params: ExcludeParams | None = None
    exclude_ips: ExcludeIps | None = None
    timezone: Timezone | None = None  # the days, hours and salts of its statistics
    traffic_alerts: TrafficAlerts | None = None  # docs/traffic-alerts.md


class WebsiteCreate(WebsiteSettings):
    domain: Domain


class WebsiteUpdate(WebsiteSettings):
    favorite: Flag | None = None
    domain: Domain | None = None  # a rename (docs/websites-domains.md#renaming-a-domain)


class WebsiteListQuery(ListQuery):
    search_by: Annotated[str, choice("domain")] = "domain"
    favorite: Flag | None = None
    sort_by: Annotated[str, choice("id", "domain")] = "id"

    filter_fields: ClassVar[tuple[str, ...]] = ("favorite",)
