"""Email digests: each account with an email address gets, weekly (on Mondays) or monthly
(on the 1st), one email with its websites' visitors and pageviews against the period
before, sent at most once per period; and the signed links that stop them per website."""

from sitelens.digests.periods import Period, due, last_complete
from sitelens.digests.sending import Outcome, send_all, send_due
from sitelens.digests.unsubscribing import unsubscribe, unsubscribe_token

__all__ = [
    "Outcome",
    "Period",
    "due",
    "last_complete",
    "send_all",
    "send_due",
    "unsubscribe",
    "unsubscribe_token",
]
