"""The rules of a saved funnel's fields and the bound of a website's funnels.

A step names a goal by id, so renaming the goal keeps the funnel. A goal may be deleted
while a funnel names it: the funnel stays (it can be changed), and asking it is refused
with a 422 naming the step (`analytics.funnels.GOAL_GONE`); the share dashboard and the
digests leave such a funnel off.
"""

from __future__ import annotations

from typing import Any, Final

from sitelens.core import numbers
from sitelens.core.errors import FieldError
from sitelens.data.funnels import MAX_STEPS, MIN_STEPS

# Each saved funnel is one more warehouse query of a dashboard or digest that shows it.
MAX_FUNNELS: Final = 10
TOO_MANY: Final = f"A website has at most {MAX_FUNNELS} funnels."
NAME_TAKEN: Final = "The name has already been taken by another funnel of the website."
NOT_A_GOAL: Final = (
    "Step {step} is not a goal of the website: create it at /api/v1/websites/{{id}}/goals."
)
NOTHING: Final = "Give the funnel's new name or steps."
STEPS: Final = (
    f"The steps field must be a list of {MIN_STEPS} to {MAX_STEPS} different goal ids"
    " of the website, in order."
)


def check_steps(value: Any) -> list[int]:
    """Goal ids, as a JSON list of integers or a form's comma-separated text."""
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",")]
    if not isinstance(value, list) or not MIN_STEPS <= len(value) <= MAX_STEPS:
        raise FieldError(STEPS)
    ids: list[int] = []
    for item in value:
        number = numbers.whole(item)
        if number is None or number < 1:
            raise FieldError(STEPS)
        ids.append(number)
    if len(set(ids)) != len(ids):
        raise FieldError("A funnel's steps must be different goals.")
    return ids
