"""The confirmation a new recipient is mailed: who added the address, for what, and the
link that confirms it; nothing more is sent to an address until it is followed."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from urllib.parse import urlsplit

from sitelens import brands
from sitelens.core.config import settings
from sitelens.data import mail
from sitelens.recipients.links import confirm_url

WHAT = {"website": "statistics digests of", "audit": "site audit reports of"}


def send_confirmation(
    account: str, target: str, name: str, address_id: str, email: str, base: str
) -> str:
    """Mail `email` the confirmation link for the account's `target` (`website:<id>`,
    `audit:<id>`) named `name`; the message's id."""
    kind = target.partition(":")[0]
    link = confirm_url(base, account, target, address_id)
    host = urlsplit(name).hostname if "://" in name else name  # an audit's URL, a domain
    brand = brands.shown(account, host, base)
    message = EmailMessage()
    message["Subject"] = f"Confirm: {WHAT[kind]} {name}"
    message["From"] = formataddr((brand.name, settings().mail_from or "digests@localhost"))
    message["To"] = email
    message["Message-ID"] = make_msgid(domain="sitelens")
    message.set_content(
        f"{brand.name} added you as a recipient of the {WHAT[kind]} {name}.\n\n"
        f"To receive them, confirm your address (the link works for 7 days):\n{link}\n\n"
        "If you did not expect this, ignore this message: nothing will be sent to you.\n"
        + (f"\n{brand.contact}\n" if brand.contact else "")
    )
    return mail.send(message)
