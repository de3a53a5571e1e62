"""Client recipients: the addresses a website or an audit mails its digest to besides the
account's own, each confirmed by a signed link before it gets anything (double opt-in) and
able to leave with one click (RFC 8058). Not what the mail says (`sitelens.digests`)."""

from sitelens.recipients.links import confirm, to_confirm, to_unsubscribe, unsubscribe
from sitelens.recipients.lists import MAX_RECIPIENTS, Target, add, confirmed, listing, remove

__all__ = [
    "MAX_RECIPIENTS",
    "Target",
    "add",
    "confirm",
    "confirmed",
    "listing",
    "remove",
    "to_confirm",
    "to_unsubscribe",
    "unsubscribe",
]
