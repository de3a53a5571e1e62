"""Scheduled audits: the scheduler's hourly pass starts the next run of every audit whose
schedule (daily, weekly, monthly) is due, read from the due index (`data.audits.due`).

An audit whose current run has not finished is left due, and tried again at the next
pass; so is one whose run the account's caps refuse now (`audits.caps`: runs going at
once, pages a day), logged with the cap's sentence. At most `MAX_DUE` audits of each
schedule start in one pass; the rest are still due an hour later, so a pass stays within
its function's time whatever the backlog.
"""

from __future__ import annotations

from sitelens.audits import caps, records
from sitelens.core import clock, errors
from sitelens.core.log import logger
from sitelens.data import audits as stored_audits

MAX_DUE = 200  # audits of one schedule started a pass (each a few writes and a message)


def run_due() -> int:
    """Start the next run of each due audit; how many started."""
    now = clock.now_iso()
    started = 0
    for schedule in records.PERIODS:
        for account, audit_id in stored_audits.due(schedule, now, MAX_DUE):
            try:
                records.start_next_run(account, audit_id)
                started += 1
            except records.RunActive:
                pass  # still running: due again at the next pass
            # a run larger than a day's pages (`errors.Invalid`) is refused every time
            except (caps.RunsCap, caps.PagesCap, errors.Invalid) as refused:
                logger.warning(
                    "scheduled audit left due: a cap of its account",
                    extra={"audit": audit_id, "account": account, "cap": str(refused.message)},
                )
            except Exception:
                logger.exception("scheduled audit did not start", extra={"audit": audit_id})
    return started
