"""The webhook tests' `receiver` (and two, `receivers`): a local server that catches
deliveries, on 127.0.0.1, so private addresses are let through the fetch guard
(`private_urls`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.test_reports import private_urls
from tests.integration.webhooks.receiver import Receiver

__all__ = ["private_urls"]  # the fixture, used by name


@pytest.fixture
def receiver(private_urls: None) -> Iterator[Receiver]:
    served = Receiver()
    yield served
    served.close()


@pytest.fixture
def receivers(private_urls: None) -> Iterator[list[Receiver]]:
    served = [Receiver(), Receiver()]
    yield served
    for one in served:
        one.close()
