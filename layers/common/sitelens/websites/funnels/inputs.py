"""What a funnels request may carry: a name and the goal ids of its steps, in order."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator

from sitelens.records.inputs import Input, checked_text, saved_name
from sitelens.websites.funnels import rules

Name = Annotated[str, checked_text(saved_name)]
Steps = Annotated[list[int], BeforeValidator(rules.check_steps)]


class FunnelCreate(Input):
    name: Name
    steps: Steps


class FunnelUpdate(Input):
    """The funnel's new name, or steps, or both (`records.update` refuses neither)."""

    name: Name | None = None
    steps: Steps | None = None
