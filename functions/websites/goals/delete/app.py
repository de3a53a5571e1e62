"""DELETE /api/v1/websites/{id}/goals/{goal_id}: remove a goal."""

from sitelens.edge.http import Request, Response, api_handler, deleted
from sitelens.websites import goals


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    goal_id = request.record_id("goal_id")
    goals.delete(request.account.id, website_id, goal_id)
    return deleted(goal_id, "goal")
