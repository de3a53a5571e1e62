"""Typed records and answers of both APIs, generated from openapi/*.yaml.

`analytics` holds the analytics base's schemas and `seo` the SEO base's; the names both
documents define (Key, Webhook, Error, Links, Meta...) are the same shape in each.
"""

from sitelens_client.models import analytics, seo
from sitelens_client.models.analytics import (
    Account,
    Annotation,
    Export,
    Funnel,
    FunnelAnswer,
    Goal,
    GuestLink,
    GuestLinkCreated,
    Key,
    KeyCreated,
    Meta,
    QueryAnswer,
    Segment,
    StatRow,
    Webhook,
    WebhookCreated,
    WebhookDelivery,
    Website,
)
from sitelens_client.models.base import SitelensModel
from sitelens_client.models.seo import (
    Audit,
    AuditIssue,
    AuditPage,
    AuditRun,
    Project,
    Report,
)

__all__ = [
    "Account",
    "Annotation",
    "Audit",
    "AuditIssue",
    "AuditPage",
    "AuditRun",
    "Export",
    "Funnel",
    "FunnelAnswer",
    "Goal",
    "GuestLink",
    "GuestLinkCreated",
    "Key",
    "KeyCreated",
    "Meta",
    "Project",
    "QueryAnswer",
    "Report",
    "Segment",
    "SitelensModel",
    "StatRow",
    "Webhook",
    "WebhookCreated",
    "WebhookDelivery",
    "Website",
    "analytics",
    "seo",
]
