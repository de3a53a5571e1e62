"""Reading template.yaml: the one place routes and tables are defined."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path(__file__).resolve().parents[4] / "template.yaml"


def load(path: Path = DEFAULT_PATH) -> dict[str, Any]:
    """The template as plain data; `!Ref X` becomes `{"Ref": "X"}`, `!Sub s` `{"Fn::Sub": s}`."""
    import yaml

    # libyaml's loader where PyYAML was built with it: ten times faster on this file
    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        pass

    def intrinsic(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
        value: Any
        if isinstance(node, yaml.ScalarNode):
            value = loader.construct_scalar(node)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)
        if suffix in ("Ref", "Condition"):  # CloudFormation's JSON has no "Fn::" on these
            return {suffix: value}
        if suffix == "GetAtt" and isinstance(value, str):
            value = value.split(".", 1)
        return {f"Fn::{suffix}": value}

    Loader.add_multi_constructor("!", intrinsic)
    with path.open() as stream:
        return yaml.load(stream, Loader=Loader)  # noqa: S506 - SafeLoader subclass


@dataclass(frozen=True)
class Route:
    api: str  # logical id of the AWS::Serverless::Api
    method: str  # upper case, or ANY
    path: str  # API Gateway resource path, e.g. /api/v1/websites/{id}
    function: str  # logical id
    code_uri: str
    handler: str  # module.function inside code_uri
    environment: dict[str, Any]
    stage_variables: dict[str, str]  # the API stage's Variables


def routes(template: dict[str, Any]) -> list[Route]:
    """Every Api event of every function in the template."""
    found = []
    for name, resource in template["Resources"].items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        props = resource["Properties"]
        env = (props.get("Environment") or {}).get("Variables") or {}
        for event in (props.get("Events") or {}).values():
            if event.get("Type") != "Api":
                continue
            spec = event["Properties"]
            api = template["Resources"][spec["RestApiId"]["Ref"]]["Properties"]
            found.append(
                Route(
                    api=spec["RestApiId"]["Ref"],
                    method=spec["Method"].upper(),
                    path=spec["Path"],
                    function=name,
                    code_uri=props["CodeUri"],
                    handler=props.get("Handler", "app.handler"),
                    environment=env,
                    stage_variables=dict(api.get("Variables") or {}),
                )
            )
    return found


def tables(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """`AWS::DynamoDB::Table` resources by logical id, as their Properties."""
    return {
        name: resource["Properties"]
        for name, resource in template["Resources"].items()
        if resource.get("Type") == "AWS::DynamoDB::Table"
    }
