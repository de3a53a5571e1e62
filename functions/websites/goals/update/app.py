"""PUT or PATCH /api/v1/websites/{id}/goals/{goal_id}: rename a goal."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites import goals
from sitelens.websites.goals.inputs import GoalUpdate


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    goal_id = request.record_id("goal_id")
    fields = GoalUpdate.parse(request.form())
    return ok(goals.update(request.account.id, website_id, goal_id, fields))
