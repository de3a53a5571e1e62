"""An email to an account's own address (a disabled webhook endpoint, a traffic alert, a
domain that moved), sent only when mail goes anywhere (SES, or make serve's outbox)."""

from __future__ import annotations

from email.message import EmailMessage

from sitelens.accounts.keys import get_account
from sitelens.core.config import settings
from sitelens.data import mail


def send(account_id: str, subject: str, text: str) -> None:
    """Mail `text` to the account, if it has an address and mail is configured; what the
    mail path raises is raised (each caller counts its own losses)."""
    if not (settings().mail_from or settings().mail_outbox):
        return
    account = get_account(account_id)
    if account is None or not account.email:
        return
    message = EmailMessage()
    message["From"] = settings().mail_from or "sitelens@localhost"
    message["To"] = account.email
    message["Subject"] = subject
    message.set_content(text)
    mail.send(message)
