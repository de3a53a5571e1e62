"""Sending email: through Amazon SES (v2), or into a folder of `.eml` files that catches
every message instead (`SITELENS_MAIL_OUTBOX`, which `make serve` sets)."""

from __future__ import annotations

import uuid
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from sitelens.core import clock
from sitelens.core.config import settings
from sitelens.data.clients import client


def send(message: EmailMessage) -> str:
    """Send the message (its `From` and `To` set); the id SES gave it, or the file's name
    in the outbox."""
    outbox = settings().mail_outbox
    if outbox:
        folder = Path(outbox)
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{clock.now().strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}.eml"
        (folder / name).write_bytes(bytes(message))
        return name
    request: dict[str, Any] = {
        "FromEmailAddress": str(message["From"]),
        "Destination": {"ToAddresses": [str(message["To"])]},
        "Content": {"Raw": {"Data": bytes(message)}},
    }
    if settings().mail_configuration_set:  # bounces and complaints are published there
        request["ConfigurationSetName"] = settings().mail_configuration_set
    answer = client("sesv2").send_email(**request)
    return str(answer["MessageId"])
