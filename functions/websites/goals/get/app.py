"""GET /api/v1/websites/{id}/goals/{goal_id}: one goal of a website."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites import goals


@api_handler
def handler(request: Request) -> Response:
    goal_id = request.record_id("goal_id")
    return ok(goals.get(request.account.id, request.record_id(), goal_id))
