"""POST /api/v1/websites/{id}/goals: a new goal (a custom event's name or a page path)."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites import goals
from sitelens.websites.goals.inputs import GoalCreate


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    fields = GoalCreate.parse(request.form())
    return ok(goals.create(request.account.id, website_id, fields), status=201)
