"""What a domain-verification request may carry: the domain, and for a check the page to
look at and the one way of proof to look for."""

from __future__ import annotations

from typing import Annotated

from sitelens.records.inputs import Input, WebUrl, choice
from sitelens.websites.inputs import Domain

METHODS = ("dns", "file", "meta")


class DomainVerification(Input):
    domain: Domain


class DomainCheck(DomainVerification):
    # the site's home page, on the domain (another port for a local site under make serve);
    # by default https://<domain>/
    url: WebUrl | None = None
    method: Annotated[str, choice(*METHODS)] | None = None  # None: each way, in this order
