"""Email digests: each account with an email address gets, for every ISO week or calendar
month (its cadence), one email with its websites' visitors and pageviews against the
period before: planned daily (one queue message per account), sent once per period by the
sender (claims), missed or failed ones planned again the next day; and the signed links
that stop them per website."""

from sitelens.digests.periods import Period, current, last_complete, of_label
from sitelens.digests.planning import Plan, plan
from sitelens.digests.sending import Outcome, send, send_all, send_batch
from sitelens.digests.unsubscribing import to_unsubscribe, unsubscribe, unsubscribe_token

__all__ = [
    "Outcome",
    "Period",
    "Plan",
    "current",
    "last_complete",
    "of_label",
    "plan",
    "send",
    "send_all",
    "send_batch",
    "to_unsubscribe",
    "unsubscribe",
    "unsubscribe_token",
]
