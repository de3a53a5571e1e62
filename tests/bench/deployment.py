"""What a stack costs before and per hit, as template.yaml deploys it: the SAM translation
(tests/fixtures/deployed.py) with one set of parameter values applied, the way
CloudFormation applies them (conditions decided, `Fn::If` taken, parameters filled in,
resources of a false condition left out), then read for what the cost model prices.

Pure: `resolve(translated, parameters)` and `describe(resolved)` take dicts; nothing here
counts by hand what the template already says.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

NO_VALUE = object()  # AWS::NoValue: the property is left out
SECONDS = 730 * 3600  # a month as AWS prices it


def parameter_values(translated: dict[str, Any], overrides: dict[str, str]) -> dict[str, str]:
    """Every parameter's value: its default unless `overrides` names it."""
    found = {
        name: str(spec.get("Default", ""))
        for name, spec in (translated.get("Parameters") or {}).items()
    }
    unknown = set(overrides) - set(found)
    if unknown:
        raise KeyError(f"not parameters of the template: {sorted(unknown)}")
    found.update({name: str(value) for name, value in overrides.items()})
    return found


def resolve(translated: dict[str, Any], overrides: dict[str, str] | None = None) -> dict[str, Any]:
    """The translated template as CloudFormation deploys it with these parameter values."""
    parameters = parameter_values(translated, overrides or {})
    conditions = translated.get("Conditions") or {}
    mappings = translated.get("Mappings") or {}
    decided: dict[str, bool] = {}

    def condition(name: str) -> bool:
        if name not in decided:
            decided[name] = bool(value(conditions[name]))
        return decided[name]

    def value(node: Any) -> Any:
        if isinstance(node, list):
            return [v for v in (value(item) for item in node) if v is not NO_VALUE]
        if not isinstance(node, dict):
            return node
        if len(node) == 1:
            ((key, arg),) = node.items()
            if key == "Ref" and arg in parameters:
                return parameters[arg]
            if key == "Ref" and arg == "AWS::NoValue":
                return NO_VALUE
            if key == "Fn::If":
                return value(arg[1] if condition(arg[0]) else arg[2])
            if key == "Fn::Equals":
                left, right = (value(a) for a in arg)
                return str(left) == str(right)
            if key == "Fn::Not":
                return not value(arg[0])
            if key == "Fn::And":
                return all(value(a) for a in arg)
            if key == "Fn::Or":
                return any(value(a) for a in arg)
            if key == "Condition" and isinstance(arg, str):
                return condition(arg)
            if key == "Fn::FindInMap":
                table, first, second = (value(a) for a in arg)
                return value(mappings[table][str(first)][second])
            if key == "Fn::Sub" and isinstance(arg, str):  # parameters only; the rest stays
                return re.sub(
                    r"\$\{([A-Za-z0-9]+)\}",
                    lambda found: parameters.get(found[1], found[0]),
                    arg,
                )
        return {k: v for k, v in ((k, value(v)) for k, v in node.items()) if v is not NO_VALUE}

    resources = {
        name: {**resource, "Properties": value(resource.get("Properties") or {})}
        for name, resource in translated["Resources"].items()
        if "Condition" not in resource or condition(resource["Condition"])
    }
    return {"Parameters": parameters, "Resources": resources}


@dataclass(frozen=True)
class Function:
    name: str
    memory_mb: int
    architecture: str  # arm64 or x86_64
    traced: bool  # TracingConfig Active
    system_log_level: str  # Lambda's own START/END/REPORT lines are INFO: WARN drops them
    environment: dict[str, str] = field(default_factory=dict)
    # SnapStart ApplyOn PublishedVersions: its snapshot cached all month, restored per new
    # environment (its init runs when a version is published, not on a request)
    snap_start: bool = False


@dataclass(frozen=True)
class QueueSource:
    """An SQS event source: Lambda's pollers long-poll its queue even when it is empty."""

    function: str
    queue: str
    window_s: float
    batch_size: int


@dataclass(frozen=True)
class StreamSource:
    """A Kinesis event source: Lambda reads the stream at no charge per request."""

    function: str
    stream: str
    window_s: float
    batch_size: int


@dataclass(frozen=True)
class Schedule:
    function: str
    expression: str
    runs_a_month: float
    input: str = ""  # the event each run gets (compaction's daily merge: {"merge": true})


@dataclass
class Deployment:
    parameters: dict[str, str]
    functions: dict[str, Function]
    hit_api: str  # "rest" or "http": what serves POST /api/event
    function_urls: set[str]  # functions with a URL of their own (HitPath=FunctionUrl)
    hit_api_access_log: bool
    hit_api_access_log_format: str
    api_stages_traced: int
    log_retention_days: float  # the functions' log groups (the longest, if they differ)
    alarms: int
    alarm_metrics: int  # metrics the alarms watch: a metric-math alarm is billed per metric
    metric_filters: int
    queue_sources: list[QueueSource]
    stream_sources: list[StreamSource]
    stream_shards: int  # provisioned shards of the Kinesis streams
    schedules: list[Schedule]
    secrets: int
    kms_keys: int
    firehose_streams: int
    tables: int
    tables_kms: int  # tables encrypted with a KMS key (SSEEnabled): each KMS request is billed
    resource_types: Counter[str] = field(default_factory=Counter)

    def memory(self, function: str) -> int:
        return self.functions[function].memory_mb


def snap_started(props: dict[str, Any]) -> bool:
    """Whether a function's properties (SAM's or CloudFormation's) turn SnapStart on: its
    init runs when a version is published, and new environments restore the snapshot."""
    return (props.get("SnapStart") or {}).get("ApplyOn") == "PublishedVersions"


def runs_a_month(expression: str) -> float:
    """Runs of an EventBridge schedule in a 730-hour month: rate(N unit) or cron(...)."""
    rate = re.fullmatch(r"rate\((\d+) (minute|hour|day)s?\)", expression)
    if rate:
        seconds = {"minute": 60, "hour": 3600, "day": 86_400}[rate[2]]
        return SECONDS / (int(rate[1]) * seconds)
    cron = re.fullmatch(r"cron\((\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\)", expression)
    if not cron:
        raise ValueError(f"a schedule the cost model cannot count: {expression}")
    minute, hour, day, _, weekday, _ = cron.groups()
    per_hour = 60 if minute == "*" else len(minute.split(","))
    per_day = per_hour * (24 if hour == "*" else len(hour.split(",")))
    if day not in ("*", "?") or weekday not in ("*", "?"):
        raise ValueError(f"a schedule the cost model cannot count: {expression}")
    return per_day * SECONDS / 86_400


def describe(resolved: dict[str, Any]) -> Deployment:
    """What the cost model prices, read from a resolved template."""
    resources = resolved["Resources"]

    def of_type(kind: str) -> dict[str, dict[str, Any]]:
        return {n: r["Properties"] for n, r in resources.items() if r["Type"] == kind}

    functions = {
        name: Function(
            name=name,
            memory_mb=int(props.get("MemorySize", 128)),
            architecture=(props.get("Architectures") or ["x86_64"])[0],
            traced=(props.get("TracingConfig") or {}).get("Mode") == "Active",
            system_log_level=(props.get("LoggingConfig") or {}).get("SystemLogLevel", "INFO"),
            snap_start=snap_started(props),
            environment={
                name: str(value)
                for name, value in ((props.get("Environment") or {}).get("Variables") or {}).items()
                if not isinstance(value, dict)  # a resource's name or ARN: not known here
            },
        )
        for name, props in of_type("AWS::Lambda::Function").items()
    }
    http = of_type("AWS::ApiGatewayV2::Stage")
    if http:
        (stage,) = http.values()
        hit_log = stage.get("AccessLogSettings") or {}
    else:
        stage = next(
            p for p in of_type("AWS::ApiGateway::Stage").values() if "AnalyticsApi" in str(p)
        )
        hit_log = stage.get("AccessLogSetting") or {}
    queues, streams = [], []
    for name, props in of_type("AWS::Lambda::EventSourceMapping").items():
        arn = props.get("EventSourceArn") or {}
        queue = (arn.get("Fn::GetAtt") or [""])[0] if isinstance(arn, dict) else ""
        if resources.get(queue, {}).get("Type") == "AWS::Kinesis::Stream":
            streams.append(
                StreamSource(
                    props["FunctionName"]["Ref"],
                    queue,
                    float(props.get("MaximumBatchingWindowInSeconds", 0)),
                    int(props.get("BatchSize", 100)),
                )
            )
            continue
        if resources.get(queue, {}).get("Type") != "AWS::SQS::Queue":
            continue
        if str(props.get("Enabled", True)).lower() == "false":  # no pollers: lean's drain
            continue
        function = props["FunctionName"]["Ref"]
        queues.append(
            QueueSource(
                function,
                queue,
                float(props.get("MaximumBatchingWindowInSeconds", 0)),
                int(props.get("BatchSize", 10)),
            )
        )
    schedules = [
        Schedule(
            props["Target"]["Arn"]["Fn::GetAtt"][0],
            props["ScheduleExpression"],
            runs_a_month(props["ScheduleExpression"]),
            str(props["Target"].get("Input", "")),
        )
        for props in of_type("AWS::Scheduler::Schedule").values()
        if props.get("State", "ENABLED") == "ENABLED"  # the digests' wait for a sender
    ]
    alarms = of_type("AWS::CloudWatch::Alarm")
    retention = [
        float(props.get("RetentionInDays", 0)) for props in of_type("AWS::Logs::LogGroup").values()
    ]
    return Deployment(
        parameters=resolved["Parameters"],
        functions=functions,
        hit_api="http" if http else "rest",
        function_urls={
            props["TargetFunctionArn"]["Fn::GetAtt"][0]
            for props in of_type("AWS::Lambda::Url").values()
        },
        hit_api_access_log=bool(hit_log),
        hit_api_access_log_format=str(hit_log.get("Format", "")),
        api_stages_traced=sum(
            1 for p in of_type("AWS::ApiGateway::Stage").values() if p.get("TracingEnabled")
        ),
        # no retention set keeps logs for ever: priced as a year (a bill that keeps growing)
        log_retention_days=max(retention) if retention and min(retention) > 0 else 365.0,
        alarms=len(alarms),
        alarm_metrics=sum(
            # a Metrics Insights query (no MetricStat) is billed as one metric
            max(1, sum(1 for m in props.get("Metrics") or [] if "MetricStat" in m))
            for props in alarms.values()
        ),
        metric_filters=len(of_type("AWS::Logs::MetricFilter")),
        queue_sources=queues,
        stream_sources=streams,
        stream_shards=sum(
            int(props.get("ShardCount", 1)) for props in of_type("AWS::Kinesis::Stream").values()
        ),
        schedules=schedules,
        secrets=len(of_type("AWS::SecretsManager::Secret")),
        kms_keys=len(of_type("AWS::KMS::Key")),
        firehose_streams=len(of_type("AWS::KinesisFirehose::DeliveryStream")),
        tables=len(of_type("AWS::DynamoDB::Table")),
        tables_kms=sum(
            1
            for props in of_type("AWS::DynamoDB::Table").values()
            if str((props.get("SSESpecification") or {}).get("SSEEnabled", False)).lower() == "true"
        ),
        resource_types=Counter(r["Type"] for r in resources.values()),
    )
