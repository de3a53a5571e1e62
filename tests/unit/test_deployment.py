"""The stack as `sam deploy` creates it (template.yaml translated by AWS's SAM translator,
tests/fixtures/deployed.py): stages, throttling, logs, tracing, queues, alarms, gateway
responses."""

from __future__ import annotations

import json
import re
import zoneinfo
from datetime import UTC, datetime
from functools import cache
from typing import Any

import pytest

from sitelens.core import metrics
from sitelens.local import template
from tests.fixtures import deployed

SOURCE = template.load()
APIS = ("AnalyticsApi", "SeoApi")
LOGS_KEPT = {"Ref": "LogRetentionDays"}


@cache
def stack() -> dict[str, Any]:
    """The deployed template, translated when a test first asks rather than at collection
    (about 2 s, which every test worker would spend)."""
    return deployed.translated()


def stack_resources() -> dict[str, Any]:
    return stack()["Resources"]


def of_type(kind: str) -> dict[str, dict[str, Any]]:
    return {name: r["Properties"] for name, r in stack_resources().items() if r["Type"] == kind}


def stage(api: str) -> dict[str, Any]:
    [found] = [
        p for p in of_type("AWS::ApiGateway::Stage").values() if p["RestApiId"] == {"Ref": api}
    ]
    return found


def test_each_api_has_one_stage_named_by_the_parameter():
    stages = sorted(
        (p["RestApiId"]["Ref"], p["StageName"]["Ref"])
        for p in of_type("AWS::ApiGateway::Stage").values()
    )
    assert stages == [("AnalyticsApi", "StageName"), ("SeoApi", "StageName")]
    # Without Globals.Api.OpenApiVersion, SAM's deployments also create a stage "Stage".
    assert [p for p in of_type("AWS::ApiGateway::Deployment").values() if "StageName" in p] == []


def test_every_method_is_throttled_and_the_tracking_endpoint_on_its_own():
    default = {
        "ResourcePath": "/*",
        "HttpMethod": "*",
        "ThrottlingRateLimit": {"Ref": "ThrottleRate"},
        "ThrottlingBurstLimit": {"Ref": "ThrottleBurst"},
    }
    assert stage("SeoApi")["MethodSettings"] == [default]
    assert stage("AnalyticsApi")["MethodSettings"] == [
        default,
        {
            "ResourcePath": "/~1api~1event",  # "/api/event", slashes written ~1
            "HttpMethod": "POST",
            "ThrottlingRateLimit": {"Ref": "EventThrottleRate"},
            "ThrottlingBurstLimit": {"Ref": "EventThrottleBurst"},
        },
    ]
    assert "post" in stack_resources()["AnalyticsApi"]["Properties"]["Body"]["paths"]["/api/event"]
    parameters = SOURCE["Parameters"]
    # the documented target (docs/operations.md): 1,000 hits/s sustained, bursts of 5,000
    assert parameters["EventThrottleRate"]["Default"] >= 1000
    assert parameters["EventThrottleBurst"]["Default"] >= 5000
    assert 0 < parameters["AccountRateLimit"]["Default"] < parameters["ThrottleRate"]["Default"]


@pytest.mark.parametrize("api", APIS)
def test_access_logs_are_json_lines_kept_for_the_retention(api):
    setting = resolved(stage(api)["AccessLogSetting"])
    group = setting["DestinationArn"]["Fn::GetAtt"][0]
    assert stack_resources()[group]["Properties"]["RetentionInDays"] == LOGS_KEPT
    line = json.loads(re.sub(r"\$context\.[\w.]+", "1", setting["Format"]))
    assert {"requestId", "method", "resource", "status", "error", "latencyMs"} <= set(line)
    # Visitors' IP addresses are never logged (docs/analytics.md, Privacy); nor user agents.
    assert "identity" not in setting["Format"]


def test_every_function_logs_to_a_group_with_a_retention():
    groups = {
        p["LogGroupName"]["Fn::Sub"]: p
        for p in of_type("AWS::Logs::LogGroup").values()
        if "LogGroupName" in p
    }
    for function in of_type("AWS::Lambda::Function"):
        assert groups[f"/aws/lambda/${{{function}}}"]["RetentionInDays"] == LOGS_KEPT


def test_tracing_follows_the_parameter_on_functions_and_stages():
    assert stack()["Conditions"]["TracingOn"] == {"Fn::Equals": [{"Ref": "Tracing"}, "Active"]}
    for function in of_type("AWS::Lambda::Function").values():
        assert function["TracingConfig"] == {"Mode": {"Ref": "Tracing"}}
    for api in APIS:
        assert stage(api)["TracingEnabled"] == {"Fn::If": ["TracingOn", True, False]}


def test_large_responses_are_compressed():
    for api in APIS:
        assert 0 < stack_resources()[api]["Properties"]["MinimumCompressionSize"] <= 10_240


def test_each_queue_has_a_dead_letter_queue_with_an_alarm():
    queues = of_type("AWS::SQS::Queue")
    dead_of = {
        name: p["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
        for name, p in queues.items()
        if "RedrivePolicy" in p
    }
    failed_runs = {arn["Fn::GetAtt"][0] for arn in schedule_failure_destinations()}
    dead = set(dead_of.values())
    # Every queue but the dead-letter ones (and the scheduled runs' failures) has one. The
    # hits have theirs alone (its age alarm, its parked hits); the low-volume queues share
    # one, and one alarm: a redrive to the source queues sends each message back to its own.
    assert len(dead_of) == len(queues) - len(dead) - len(failed_runs)
    assert dead_of["HitsQueue"] not in {q for n, q in dead_of.items() if n != "HitsQueue"}
    shared = {"TasksQueue", "WebhookQueue", "AuditQueue"}
    assert {dead_of[name] for name in shared} == {"JobsDeadLetterQueue"}
    assert set(dead_of) == shared | {"HitsQueue"}
    alarms = of_type("AWS::CloudWatch::Alarm").values()
    for queue in [*dead, *failed_runs]:
        dimension = {"Name": "QueueName", "Value": {"Fn::GetAtt": [queue, "QueueName"]}}
        [alarm] = [
            a
            for a in alarms
            if dimension in a.get("Dimensions", [])
            and a["MetricName"] == "ApproximateNumberOfMessagesVisible"
        ]
        assert alarm["Namespace"] == "AWS/SQS"
        assert (alarm["ComparisonOperator"], alarm["Threshold"]) == ("GreaterThanThreshold", 0)
        assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]


def test_visibility_timeouts_outlast_every_try_of_their_function():
    """Lambda's guidance: at least 6 x the function's timeout + the batching window."""
    functions = of_type("AWS::Lambda::Function")
    queues = of_type("AWS::SQS::Queue")
    mappings = of_type("AWS::Lambda::EventSourceMapping").values()
    assert {m["EventSourceArn"]["Fn::GetAtt"][0] for m in mappings} >= {
        "HitsQueue",
        "TasksQueue",
    }
    for mapping in mappings:
        if mapping["EventSourceArn"]["Fn::GetAtt"][0] not in queues:
            continue  # the hits stream (HitStream=kinesis): records are not hidden, no timeout
        queue = queues[mapping["EventSourceArn"]["Fn::GetAtt"][0]]
        timeout = functions[mapping["FunctionName"]["Ref"]]["Timeout"]
        window = mapping.get("MaximumBatchingWindowInSeconds", 0)
        if isinstance(window, dict):  # a parameter (HitsBatchingWindowSeconds): its largest
            window = SOURCE["Parameters"][window["Ref"]]["MaxValue"]
        assert queue["VisibilityTimeout"] >= 6 * timeout + window


@pytest.mark.parametrize("api", APIS)
def test_each_api_alarms_on_5xx_and_on_throttling(api):
    alarms = list(of_type("AWS::CloudWatch::Alarm").values())
    name = stack_resources()[api]["Properties"]["Name"]
    [errors] = [a for a in alarms if {"Name": "ApiName", "Value": name} in a.get("Dimensions", [])]
    assert (errors["Namespace"], errors["MetricName"]) == ("AWS/ApiGateway", "5XXError")
    assert {"Name": "Stage", "Value": {"Ref": "StageName"}} in errors["Dimensions"]
    log_group = resolved(stage(api)["AccessLogSetting"])["DestinationArn"]["Fn::GetAtt"][0]
    [counter] = [
        f
        for f in of_type("AWS::Logs::MetricFilter").values()
        if f["LogGroupName"] == {"Ref": log_group}
    ]
    assert counter["FilterPattern"] == '{ $.error = "THROTTLED" }'  # the stage's, not 429s of ours
    [counted] = counter["MetricTransformations"]
    [throttles] = [a for a in alarms if a.get("MetricName") == counted["MetricName"]]
    assert throttles["Namespace"] == counted["MetricNamespace"]
    for alarm in (errors, throttles):
        assert (alarm["ComparisonOperator"], alarm["Threshold"]) == ("GreaterThanThreshold", 0)
        assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]


# API Gateway's 4xx response types and their own statuses (API Gateway developer guide,
# "Gateway response types"). Ours differ only where the contract says so.
GATEWAY_4XX = {
    "ACCESS_DENIED": 403,
    "BAD_REQUEST_BODY": 400,
    "BAD_REQUEST_PARAMETERS": 400,
    "EXPIRED_TOKEN": 403,
    "INVALID_API_KEY": 403,
    "INVALID_SIGNATURE": 403,
    "MISSING_AUTHENTICATION_TOKEN": 404,  # an unknown route: the contract's 404, not 403
    "QUOTA_EXCEEDED": 429,
    "REQUEST_TOO_LARGE": 413,
    "RESOURCE_NOT_FOUND": 404,
    "THROTTLED": 429,
    "UNAUTHORIZED": 401,
    "UNSUPPORTED_MEDIA_TYPE": 415,
    "WAF_FILTERED": 403,
}


@pytest.mark.parametrize("api", APIS)
def test_gateway_responses_keep_each_error_s_own_status(api):
    body = stack_resources()[api]["Properties"]["Body"]
    responses = body["x-amazon-apigateway-gateway-responses"]
    for kind, status in GATEWAY_4XX.items():
        assert responses[kind]["statusCode"] == str(status), kind
        body = json.loads(responses[kind]["responseTemplates"]["application/json"])
        assert body["status"] == status, kind
    # A type added later keeps its own status too: DEFAULT_4XX sets none.
    assert "statusCode" not in responses["DEFAULT_4XX"]


def holds(condition: str, parameters: dict[str, str]) -> bool:
    """Whether the template's condition is true for these parameter values (else defaults)."""
    return bool(template.resolved(stack(), {"Condition": condition}, parameters))


def resolved(node: Any, parameters: dict[str, str] | None = None) -> Any:
    """`node` with each Fn::If chosen as these parameters (else the defaults) choose it;
    None for AWS::NoValue."""
    if isinstance(node, dict) and "Fn::If" in node:
        condition, yes, no = node["Fn::If"]
        chosen = resolved(yes if holds(condition, parameters or {}) else no, parameters)
        return None if chosen == {"Ref": "AWS::NoValue"} else chosen
    if isinstance(node, dict):
        return {key: resolved(value, parameters) for key, value in node.items()}
    return node


def deployed_with(**parameters: str) -> dict[str, dict[str, Any]]:
    """The translated resources CloudFormation creates with these parameters."""
    return {
        name: resource
        for name, resource in stack_resources().items()
        if template.deployed(stack(), resource, parameters)
    }


def test_the_rest_api_serves_hits_unless_the_http_api_is_chosen():
    assert SOURCE["Parameters"]["HitPath"]["Default"] == "RestApi"
    by_default = deployed_with()
    assert [r for r in by_default.values() if r["Type"].startswith("AWS::ApiGatewayV2")] == []
    output = SOURCE["Outputs"]["HitBaseUrl"]["Value"]
    assert output["Fn::If"][0] == "UseHttpApi"
    assert "${AnalyticsApi}" in output["Fn::If"][2]["Fn::Sub"]


def test_with_hit_path_http_api_the_hits_and_the_script_have_an_http_api_of_their_own():
    resources = deployed_with(HitPath="HttpApi")
    [api] = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::ApiGatewayV2::Api"]
    paths = api["Body"]["paths"]
    assert sorted((path, method) for path, routes in paths.items() for method in routes) == [
        ("/api/event", "post"),
        ("/js/{file}", "get"),
    ]
    for (path, method), function in {
        ("/api/event", "post"): "EventFunction",
        ("/js/{file}", "get"): "ScriptFunction",
    }.items():
        integration = paths[path][method]["x-amazon-apigateway-integration"]
        assert (integration["type"], integration["payloadFormatVersion"]) == ("aws_proxy", "2.0")
        assert f"${{{function}.Arn}}" in integration["uri"]["Fn::Sub"]
        [permission] = [
            r["Properties"]
            for r in resources.values()
            if r["Type"] == "AWS::Lambda::Permission"
            and r["Properties"]["FunctionName"] == {"Ref": function}
            and "${HitsHttpApi}" in r["Properties"]["SourceArn"]["Fn::Sub"]
        ]
        # a path parameter is any one segment in the source ARN (as SAM writes it)
        assert permission["SourceArn"]["Fn::Sub"].endswith("/*/*" + path.replace("{file}", "*"))
    # the preflight is API Gateway's, open to every page, and the script may read Retry-After
    cors = api["Body"]["x-amazon-apigateway-cors"]
    assert cors["allowOrigins"] == ["*"] and "POST" in cors["allowMethods"]
    assert "retry-after" in cors["exposeHeaders"]
    [stage] = [
        r["Properties"] for r in resources.values() if r["Type"] == "AWS::ApiGatewayV2::Stage"
    ]
    assert stage["DefaultRouteSettings"] == {
        "ThrottlingRateLimit": {"Ref": "EventThrottleRate"},
        "ThrottlingBurstLimit": {"Ref": "EventThrottleBurst"},
    }
    logged = resolved(stage["AccessLogSettings"], {"HitPath": "HttpApi"})
    group = logged["DestinationArn"]["Fn::GetAtt"][0]
    assert resources[group]["Properties"]["RetentionInDays"] == LOGS_KEPT
    assert "sourceIp" not in logged["Format"]
    alarmed = {r["Properties"].get("MetricName") for r in resources.values()}
    assert {"ApiRequestsThrottled", "5xx"} <= alarmed


def test_the_waf_rate_rule_is_off_by_default_and_keyed_by_ip_when_on():
    assert not [r for r in deployed_with().values() if r["Type"].startswith("AWS::WAFv2")]
    resources = deployed_with(WafRateLimitPer5Min="2000")
    [acl] = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::WAFv2::WebACL"]
    [rule] = acl["Rules"]
    limit = rule["Statement"]["RateBasedStatement"]
    assert (limit["Limit"], limit["AggregateKeyType"], limit["EvaluationWindowSec"]) == (
        {"Ref": "WafRateLimitPer5Min"},
        "IP",
        300,
    )
    assert rule["Action"] == {"Block": {}}
    [association] = [
        r["Properties"] for r in resources.values() if r["Type"] == "AWS::WAFv2::WebACLAssociation"
    ]
    arn = association["ResourceArn"]["Fn::Sub"]
    assert arn.endswith("/restapis/${AnalyticsApi}/stages/${AnalyticsApiStage}")
    assert stack_resources()["AnalyticsApiStage"]["Type"] == "AWS::ApiGateway::Stage"


def test_every_function_names_the_stack_s_metrics_namespace():
    variables = SOURCE["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["POWERTOOLS_METRICS_NAMESPACE"] == {"Fn::Sub": "Sitelens/${AWS::StackName}"}
    assert variables["POWERTOOLS_SERVICE_NAME"] == "sitelens"
    for name in ("SITELENS_SITE_HITS_PER_SECOND", "SITELENS_SITE_HITS_BURST"):
        assert "Ref" in variables[name]


def alarm_on(metric: str, queue: str | None = None) -> dict[str, Any]:
    """The one alarm on a metric (of a queue)."""
    found = [
        a
        for a in of_type("AWS::CloudWatch::Alarm").values()
        if a.get("MetricName") == metric and (queue is None or queue in str(a.get("Dimensions")))
    ]
    assert len(found) == 1, metric
    assert found[0]["AlarmActions"] == [{"Ref": "AlarmTopic"}]
    return found[0]


@pytest.mark.parametrize(
    ("loss", "total"),
    [
        ("RowsFailed", "PipelineFaults"),
        ("CounterChunksFailed", "PipelineFaults"),
        ("PresencesFailed", "PipelineFaults"),
        ("HitsThrottled", "HitsLost"),
        ("HitsParked", "HitsLost"),
        ("RequestsThrottled", "RequestsDegraded"),
    ],
)
def test_each_loss_of_the_pipeline_is_alarmed_by_its_sum(loss, total):
    assert metrics.LOSSES[loss] == total
    alarm = alarm_on(total)
    assert alarm["Namespace"] == {"Fn::Sub": "Sitelens/${AWS::StackName}"}
    assert alarm["Dimensions"] == [{"Name": "service", "Value": "sitelens"}]
    assert (alarm["ComparisonOperator"], alarm["Threshold"]) == ("GreaterThanThreshold", 0)


def test_faults_retried_on_their_own_alarm_when_sustained():
    alarm = alarm_on("PipelineFaults")
    assert (alarm["DatapointsToAlarm"], alarm["EvaluationPeriods"], alarm["Period"]) == (3, 3, 300)


def test_queues_alarm_on_the_age_of_their_oldest_hit():
    def age_alarm(queue: str) -> dict[str, Any]:
        dimension = {"Name": "QueueName", "Value": {"Fn::GetAtt": [queue, "QueueName"]}}
        [alarm] = [
            a
            for a in of_type("AWS::CloudWatch::Alarm").values()
            if a.get("MetricName") == "ApproximateAgeOfOldestMessage"
            and dimension in a.get("Dimensions", [])
        ]
        return alarm

    kept = stack_resources()["HitsDeadLetterQueue"]["Properties"]["MessageRetentionPeriod"]
    assert 0 < age_alarm("HitsDeadLetterQueue")["Threshold"] <= kept / 4  # days to redrive
    # the drain (lean) lets a hit wait its period: three periods is behind
    threshold = age_alarm("HitsQueue")["Threshold"]
    lean = {"Fn::FindInMap": ["HitsDrain", {"Ref": "HitsDrainMinutes"}, "BacklogSeconds"]}
    assert threshold == {"Fn::If": ["HitsDrained", lean, 300]}
    minutes = stack()["Parameters"]["HitsDrainMinutes"]["AllowedValues"]
    assert {str(m): {"BacklogSeconds": 3 * 60 * m} for m in minutes} == stack()["Mappings"][
        "HitsDrain"
    ]


def test_firehose_delivery_errors_alarm():
    stream = {"Name": "DeliveryStreamName", "Value": {"Ref": "EventsStream"}}
    success = alarm_on("DeliveryToS3.Success")
    assert (success["Statistic"], success["ComparisonOperator"], success["Threshold"]) == (
        "Average",
        "LessThanThreshold",
        1,
    )
    freshness = alarm_on("DeliveryToS3.DataFreshness")
    for alarm in (success, freshness):
        assert alarm["Namespace"] == "AWS/Firehose" and alarm["Dimensions"] == [stream]


def test_every_metric_counted_is_documented_with_its_alarm():
    """Losses are data: each metric the code counts is in docs/operations.md's table, and
    every alarm the page names is in the template."""
    root = template.DEFAULT_PATH.parent
    counted = {
        name
        for path in [*root.glob("layers/common/sitelens/**/*.py"), *root.glob("functions/**/*.py")]
        for name in re.findall(r"metrics\.count\(\s*\"(\w+)\"", path.read_text())
    }
    page = (root / "docs" / "operations.md").read_text()
    section = page.split("## Metrics and alarms", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)(?:\[\w+\])?` \|.*\| `?(\w+)`? \|$", section, re.MULTILINE)
    documented = dict(rows)
    assert counted <= set(documented), "document each metric in docs/operations.md"
    for name in counted:  # a loss with the sum its alarm reads, a figure with "log line"
        assert documented[name] == metrics.LOSSES.get(name, "figure"), name
    named = set(re.findall(r"`(\w+Alarm)`", page))
    assert named - set(SOURCE["Resources"]) == set()


def test_digests_are_planned_once_the_period_has_ended_in_every_time_zone():
    """A digest reports its websites' days in their own zones (as the query API answers
    them): the planner runs when the day before has ended everywhere, UTC-12 included."""
    events = SOURCE["Resources"]["DigestFunction"]["Properties"]["Events"].values()
    [schedule] = [event["Properties"] for event in events if event["Type"] == "ScheduleV2"]
    assert schedule["ScheduleExpressionTimezone"] == "UTC"
    found = re.fullmatch(r"cron\((\d+) (\d+) \* \* \? \*\)", schedule["ScheduleExpression"])
    assert found, schedule["ScheduleExpression"]
    monday = datetime(2026, 11, 23, int(found[2]), int(found[1]), tzinfo=UTC)
    behind = [
        name
        for name in sorted(zoneinfo.available_timezones())
        if monday.astimezone(zoneinfo.ZoneInfo(name)).date() < monday.date()
    ]
    assert behind == []


def scheduled_functions() -> dict[str, dict[str, Any]]:
    """Every function with a schedule event, by name, with its properties."""
    return {
        name: r["Properties"]
        for name, r in SOURCE["Resources"].items()
        if r["Type"] == "AWS::Serverless::Function"
        and any(
            e["Type"] in ("Schedule", "ScheduleV2")
            for e in r["Properties"].get("Events", {}).values()
        )
    }


def schedule_failure_destinations() -> list[dict[str, Any]]:
    """The queues scheduled runs fail to: the schedules' dead letters, the functions' OnFailure."""
    found = []
    for function in scheduled_functions().values():
        found.append(function["EventInvokeConfig"]["DestinationConfig"]["OnFailure"]["Destination"])
        for event in function["Events"].values():
            if event["Type"] in ("Schedule", "ScheduleV2"):
                found.append(event["Properties"]["DeadLetterConfig"]["Arn"])
    return found


def test_every_scheduled_function_keeps_its_failed_runs_where_an_alarm_sees_them():
    """A scheduled run has no caller to see it fail: its schedules have a retry policy and a
    dead letter (the scheduler could not invoke), its asynchronous invocations an OnFailure
    destination (the function failed its retries), both the alarmed ScheduleDeadLetterQueue;
    no alarm on Errors, since a run a retry heals is no loss (an alarm metric each)."""
    functions = scheduled_functions()
    assert {"AuditScheduleFunction", "TrafficAlertsFunction", "GoalWebhooksFunction"} <= set(
        functions
    )
    queues = of_type("AWS::SQS::Queue")
    assert alarm_on("ApproximateNumberOfMessagesVisible", "ScheduleDeadLetterQueue")
    for name, function in functions.items():
        on_failure = function.get("EventInvokeConfig", {}).get("DestinationConfig", {})
        assert on_failure.get("OnFailure", {}).get("Type") == "SQS", name
        assert on_failure["OnFailure"]["Destination"]["Fn::GetAtt"][0] in queues, name
        for event in function["Events"].values():
            if event["Type"] in ("Schedule", "ScheduleV2"):
                schedule = event["Properties"]
                assert "RetryPolicy" in schedule, name
                assert (
                    schedule.get("DeadLetterConfig", {}).get("Arn", {})["Fn::GetAtt"][0] in queues
                ), name


def test_firehose_conversion_failures_alarm():
    """Rows that cannot become Parquet go to landing-errors/, which compaction never reads."""
    alarm = alarm_on("FailedConversion.Records")
    assert alarm["Namespace"] == "AWS/Firehose"
    assert alarm["Dimensions"] == [{"Name": "DeliveryStreamName", "Value": {"Ref": "EventsStream"}}]
    assert (alarm["Statistic"], alarm["ComparisonOperator"], alarm["Threshold"]) == (
        "Sum",
        "GreaterThanThreshold",
        0,
    )


# Properties that give a resource its name in the account and region (two stacks there must
# not share one); other `...Name`s refer to something (a StageName, a MetricName).
PHYSICAL_NAMES = {
    "Name",
    "TableName",
    "QueueName",
    "TopicName",
    "BucketName",
    "RoleName",
    "LayerName",
    "AliasName",
    "StateMachineName",
}
OWN_NAMES = {"AWS::Lambda::Function": "FunctionName", "AWS::Logs::LogGroup": "LogGroupName"}
# Named within something the stack names: a function's alias (McpFunction's `live`)
NAMED_WITHIN = {"AWS::Lambda::Alias"}
# EventBridge Scheduler's names are at most 64 characters: with suffixes of at most 8, any
# stack name up to 56 characters fits (docs/deployment.md).
SCHEDULE_SUFFIX_CHARS = 8


def _named_resources() -> dict[str, Any]:
    found = {}
    for name, resource in stack_resources().items():
        if resource["Type"] in NAMED_WITHIN:
            continue
        props = resource.get("Properties") or {}
        keys = PHYSICAL_NAMES | {OWN_NAMES.get(resource["Type"], "")}
        found.update({f"{name}.{key}": props[key] for key in keys & set(props)})
        if resource["Type"] == "AWS::Glue::Database":
            found[f"{name}.DatabaseInput.Name"] = props["DatabaseInput"]["Name"]
    return found


def test_every_named_resource_is_named_by_the_stack():
    named = _named_resources()
    assert "CompactionFunctionHourly.Name" in named  # ScheduleV2's schedules are among them
    resources = set(stack_resources())
    for where, value in named.items():
        text = value.get("Fn::Sub", "") if isinstance(value, dict) else ""
        derived = "${AWS::StackName}" in text or set(re.findall(r"\$\{(\w+)", text)) & resources
        assert derived or (isinstance(value, dict) and value.get("Ref") in resources), (
            f"{where} is {value}: a second stack in the same account and region would clash"
        )


def test_schedule_names_leave_room_for_the_stack_s_name():
    schedules = of_type("AWS::Scheduler::Schedule")
    assert len(schedules) >= 5
    for name, props in schedules.items():
        suffix = props["Name"]["Fn::Sub"].replace("${AWS::StackName}", "")
        assert len(suffix) <= SCHEDULE_SUFFIX_CHARS, f"{name}: {suffix}"


@pytest.mark.parametrize("hit_path", ["RestApi", "HttpApi"])
def test_the_lean_profile_keeps_no_access_log_on_the_apis_that_take_hits(hit_path):
    lean = {"HitPath": hit_path, "CostProfile": "lean"}
    resources = deployed_with(**lean)
    stages = [
        r["Properties"]
        for r in resources.values()
        if r["Type"] in ("AWS::ApiGateway::Stage", "AWS::ApiGatewayV2::Stage")
    ]
    logs = {
        resources_name(r): resolved(r.get("AccessLogSetting") or r.get("AccessLogSettings"), lean)
        for r in stages
    }
    assert logs.pop("SeoApi") is not None  # no hits there
    assert set(logs.values()) == {None}
    # the edge throttles' counters read those logs: they go with them (docs/operations.md)
    filters = [
        r["Properties"] for r in resources.values() if r["Type"] == "AWS::Logs::MetricFilter"
    ]
    assert [f["LogGroupName"] for f in filters] == [{"Ref": "SeoApiAccessLogs"}]
    standard = deployed_with(HitPath=hit_path)
    assert {"AnalyticsApiAccessLogs", "AnalyticsApiThrottles"} <= set(standard)
    assert ("HitsHttpApiThrottles" in standard) == (hit_path == "HttpApi")


def test_the_lean_profile_keeps_the_alarms_of_losses_and_leaves_out_the_reminders():
    def alarms(**parameters: str) -> set[str]:
        found = deployed_with(**parameters)
        return {name for name, r in found.items() if r["Type"] == "AWS::CloudWatch::Alarm"}

    standard, lean = alarms(), alarms(CostProfile="lean")
    reminders = {"HitsDeadLetterAgeAlarm", "EventsConversionAlarm"}
    assert standard - lean == reminders  # a second alarm on a hit already in alarm; no loss
    assert lean <= standard
    assert {"HitsDeadLetterAlarm", "HitsLostAlarm", "JobsDeadLetterAlarm"} <= lean


def resources_name(stage_properties: dict[str, Any]) -> str:
    api = stage_properties.get("RestApiId") or stage_properties.get("ApiId")
    return str(api["Ref"])


def test_the_lean_profile_s_event_function_writes_no_platform_line():
    [function] = [
        r["Properties"] for name, r in stack_resources().items() if name == "EventFunction"
    ]
    logging = resolved(function["LoggingConfig"], {"CostProfile": "lean"})
    # no START/END/REPORT; application lines at INFO, where Lambda files the EMF lines
    assert logging == {"LogFormat": "JSON", "ApplicationLogLevel": "INFO", "SystemLogLevel": "WARN"}


def test_with_hit_path_function_url_hits_go_to_the_event_function_s_own_url():
    assert "FunctionUrl" in SOURCE["Parameters"]["HitPath"]["AllowedValues"]
    assert [r for r in deployed_with().values() if r["Type"] == "AWS::Lambda::Url"] == []
    resources = deployed_with(HitPath="FunctionUrl")
    urls = {
        r["Properties"]["TargetFunctionArn"]["Fn::GetAtt"][0]: r["Properties"]
        for r in resources.values()
        if r["Type"] == "AWS::Lambda::Url"
    }
    assert sorted(urls) == ["EventFunction", "ScriptFunction"]  # the script's own URL too
    url = urls["EventFunction"]
    assert urls["ScriptFunction"]["AuthType"] == "NONE"
    assert "Cors" not in urls["ScriptFunction"]  # a <script> needs no CORS
    assert url["AuthType"] == "NONE"
    # the preflight is Lambda's, as open as the HTTP API's
    http_api = SOURCE["Resources"]["HitsHttpApi"]["Properties"]["CorsConfiguration"]
    assert url["Cors"]["AllowOrigins"] == http_api["AllowOrigins"] == ["*"]
    assert url["Cors"]["ExposeHeaders"] == http_api["ExposeHeaders"]
    assert url["Cors"]["AllowMethods"] == ["POST"]
    for function in urls:
        grants = sorted(
            (r["Properties"]["Action"], r["Properties"]["Principal"])
            for r in resources.values()
            if r["Type"] == "AWS::Lambda::Permission"
            and r["Properties"]["FunctionName"] == {"Ref": function}
            and r["Properties"]["Principal"] == "*"
        )
        assert grants == [("lambda:InvokeFunction", "*"), ("lambda:InvokeFunctionUrl", "*")]
        [invoke] = [
            r["Properties"]
            for r in resources.values()
            if r["Type"] == "AWS::Lambda::Permission"
            and r["Properties"]["FunctionName"] == {"Ref": function}
            and r["Properties"]["Action"] == "lambda:InvokeFunction"
            and r["Properties"]["Principal"] == "*"
        ]
        assert invoke["InvokedViaFunctionUrl"] is True  # public only through the URL
    assert not [r for r in resources.values() if r["Type"].startswith("AWS::ApiGatewayV2")]
    assert SOURCE["Outputs"]["HitFunctionUrl"]["Condition"] == "UseFunctionUrl"
    assert SOURCE["Outputs"]["ScriptUrl"]["Condition"] == "UseFunctionUrl"


def test_tables_use_the_aws_owned_key_which_bills_no_kms_request():
    tables = of_type("AWS::DynamoDB::Table")
    assert len(tables) >= 9
    for name, table in tables.items():
        assert not table.get("SSESpecification", {}).get("SSEEnabled"), name


def chosen(node: Any, parameters: dict[str, str]) -> Any:
    """`node` with each `!If` decided by these parameters and each `AWS::NoValue` left out,
    its other intrinsics kept (a resource's `!Ref` has no value before deploying)."""
    if isinstance(node, list):
        items = [chosen(item, parameters) for item in node]
        return [item for item in items if item != {"Ref": "AWS::NoValue"}]
    if not isinstance(node, dict):
        return node
    if list(node) == ["Fn::If"]:
        condition, when_true, when_false = node["Fn::If"]
        holds = template.resolved(SOURCE, {"Condition": condition}, parameters)
        return chosen(when_true if holds else when_false, parameters)
    return {
        key: chosen(value, parameters)
        for key, value in node.items()
        if chosen(value, parameters) != {"Ref": "AWS::NoValue"}
    }


PARAMETERS = "arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter"
KEYRING_ARN = PARAMETERS + "/${AWS::StackName}/signing-keys"
SEAL_ARN = PARAMETERS + "/${AWS::StackName}/seal-key"
# audits' crawl secrets; Search Console's refresh tokens and keys (docs/search-console.md);
# McpFunction: its start_audit tool creates an audit as POST /api/v1/audits does
SEALERS = {
    "CreateAuditFunction",
    "UpdateAuditFunction",
    "AuditFunction",
    "McpFunction",
    "SearchConsoleFunction",
    "SearchConsoleCallbackFunction",
    "TasksFunction",
}
UNSEALERS = {"AuditFunction", "TasksFunction"}  # they only unseal: they never make the key


def _environment(function: str, parameters: dict[str, str]) -> dict[str, Any]:
    variables = dict(SOURCE["Globals"]["Function"]["Environment"]["Variables"])
    own = SOURCE["Resources"][function]["Properties"].get("Environment") or {}
    variables.update(own.get("Variables") or {})
    return dict(chosen(variables, parameters))


def test_the_lean_profile_keeps_the_keyring_and_the_seal_key_in_parameters():
    lean = {"CostProfile": "lean"}
    resources = {n: r for n, r in SOURCE["Resources"].items() if template.deployed(SOURCE, r, lean)}
    # no secret ($0.40 a month) and no customer-managed key ($1 a month)
    kinds = {r["Type"] for r in resources.values()}
    assert "AWS::SecretsManager::Secret" not in kinds and "AWS::KMS::Key" not in kinds
    assert "AWS::KMS::Alias" not in kinds
    signers = [n for n, r in resources.items() if _uses_keyring(r)]
    assert len(signers) >= 10
    for name in signers:
        env = _environment(name, lean)
        assert env["SITELENS_SIGNING_KEYS_PARAMETER"] == {
            "Fn::Sub": "/${AWS::StackName}/signing-keys"
        }
        assert "SITELENS_SIGNING_KEYS_ARN" not in env
    statements = chosen(
        SOURCE["Resources"]["SigningKeysPolicy"]["Properties"]["PolicyDocument"]["Statement"], lean
    )
    assert statements == [
        {
            "Effect": "Allow",
            "Action": ["ssm:GetParameter", "ssm:PutParameter"],
            "Resource": {"Fn::Sub": KEYRING_ARN},
        },
        {
            "Effect": "Deny",
            "Action": ["ssm:PutParameter"],
            "Resource": {"Fn::Sub": KEYRING_ARN},
            "Condition": {"StringEquals": {"ssm:Overwrite": "true"}},
        },
    ]
    for name in SEALERS:
        env = _environment(name, lean)
        assert env["SITELENS_SEAL_KEY_PARAMETER"] == {"Fn::Sub": "/${AWS::StackName}/seal-key"}
        assert "SITELENS_SEAL_KEY_ID" not in env
        granted = _statements_of(name, lean)
        assert "kms:" not in str(granted)
        on_key = [s for s in granted if s["Resource"] == {"Fn::Sub": SEAL_ARN}]
        allowed = {a for s in on_key if s["Effect"] == "Allow" for a in s["Action"]}
        # the crawl worker and the tasks only unseal: they never make the key
        assert allowed == (
            {"ssm:GetParameter"} if name in UNSEALERS else {"ssm:GetParameter", "ssm:PutParameter"}
        )
    # nobody else may read the seal key
    others = [n for n in resources if n not in SEALERS and "Policies" in str(resources[n])]
    assert all("seal-key" not in str(_statements_of(n, lean)) for n in others)


def test_the_standard_profile_keeps_the_secret_and_the_kms_key_and_no_parameter():
    standard = {"CostProfile": "standard"}
    resources = {
        n: r for n, r in SOURCE["Resources"].items() if template.deployed(SOURCE, r, standard)
    }
    assert {"SigningKeys", "SealKey", "SealKeyAlias"} <= set(resources)
    statements = chosen(
        SOURCE["Resources"]["SigningKeysPolicy"]["Properties"]["PolicyDocument"]["Statement"],
        standard,
    )
    assert statements == [
        {
            "Effect": "Allow",
            "Action": ["secretsmanager:GetSecretValue"],
            "Resource": {"Ref": "SigningKeys"},
        }
    ]
    for name, resource in resources.items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        env = _environment(name, standard)
        assert "SITELENS_SIGNING_KEYS_PARAMETER" not in env
        assert "SITELENS_SEAL_KEY_PARAMETER" not in env
        assert env["SITELENS_SIGNING_KEYS_ARN"] == {"Ref": "SigningKeys"}
        assert "ssm:" not in str(_statements_of(name, standard)), name
    for name in SEALERS:
        assert _environment(name, standard)["SITELENS_SEAL_KEY_ID"] == {"Ref": "SealKey"}


def _uses_keyring(resource: dict[str, Any]) -> bool:
    return {"Ref": "SigningKeysPolicy"} in (resource.get("Properties") or {}).get("Policies", [])


def _statements_of(function: str, parameters: dict[str, str]) -> list[dict[str, Any]]:
    found = []
    for policy in chosen(
        SOURCE["Resources"][function]["Properties"].get("Policies", []), parameters
    ):
        if isinstance(policy, dict) and "Statement" in policy:
            found += policy["Statement"]
    return found
