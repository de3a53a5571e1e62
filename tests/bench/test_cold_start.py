"""Cold start: each handler's init in a fresh process, against boto3 alone and two peers.

Every function of template.yaml is imported the way Lambda does it (its CodeUri first on
sys.path, then the layer) and creates the clients its IAM policy says it uses; the floor
imports boto3 and creates a DynamoDB client; the peers import their app module, which
creates its DynamoDB client at module scope. Bytecode is compiled first, as the layer
build ships it, and a warm-up round fills the OS file cache before anything is counted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitelens.local import resources, template
from tests.bench import deployment, report, timing

ROOT = report.ROOT
# BENCH_LAYER measures another build of the layer (a candidate change, say) in its place.
LAYER = Path(os.environ.get("BENCH_LAYER") or ROOT / "layers" / "common")
CLIENT_SERVICES = ("dynamodb", "sqs")

# Runs in the fresh interpreter: the timer starts before the first import of the subject.
_SCRIPT = """\
import time
start, cpu_start = time.perf_counter(), time.process_time()
import importlib, sys
sys.path[0:0] = {paths!r}
module = importlib.import_module({module!r})
assert callable(getattr(module, {attr!r}))
{clients}
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
import json, os
cached = [getattr(m, "__cached__", None) for m in list(sys.modules.values())]
uncompiled = sorted(c for c in cached if c and not os.path.exists(c))
imported = sorted(sys.modules)
import hashlib
imports = hashlib.sha256(" ".join(imported).encode()).hexdigest()
print(json.dumps([elapsed * 1000, cpu * 1000, len(imported), uncompiled, imports]))
"""


@dataclass(frozen=True)
class Subject:
    name: str
    paths: tuple[str, ...]
    module: str
    attr: str
    clients: str  # code run after the import, inside the timed part


def _services(function: dict) -> list[str]:
    """The AWS services a function's policy grants actions on (what it creates clients for)."""
    found = set()
    for policy in (function.get("Properties") or {}).get("Policies") or []:
        statements = policy.get("Statement", []) if isinstance(policy, dict) else []
        for statement in statements:
            actions = statement.get("Action", [])
            for action in [actions] if isinstance(actions, str) else actions:
                found.add(action.split(":", 1)[0])
    return [service for service in CLIENT_SERVICES if service in found]


def handler_subjects(spec: dict) -> list[Subject]:
    subjects = []
    for name, resource in spec["Resources"].items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        props = resource["Properties"]
        module, _, attr = props.get("Handler", "app.handler").rpartition(".")
        services = _services(resource)
        clients = "".join(f"client({service!r})\n" for service in services)
        if clients:
            clients = "from sitelens.data.clients import client\n" + clients
        code = str(ROOT / props["CodeUri"])
        subjects.append(Subject(name, (code, str(LAYER)), module, attr, clients))
    return subjects


def snapstarted(spec: dict) -> dict[str, list[str]]:
    """Each CostProfile's functions that restore a SnapStart snapshot: their init runs when a
    version is published, not when a request starts an environment."""
    found = {}
    for profile in PROFILES:
        resolved = deployment.resolve(spec, {"CostProfile": profile})["Resources"]
        found[profile] = sorted(
            name
            for name, resource in resolved.items()
            if resource.get("Type") == "AWS::Serverless::Function"
            and deployment.snap_started(resource["Properties"])
        )
    return found


PROFILES = ("standard", "lean")
PEERS = (
    Subject("fastapi_mangum", (str(ROOT),), "tests.bench.peers.fastapi_app", "handler", ""),
    Subject("powertools_resolver", (str(ROOT),), "tests.bench.peers.powertools_app", "handler", ""),
)
PEER_NAMES = tuple(p.name for p in PEERS)
QUICK_HANDLERS = ("EventFunction",)
FLOOR = Subject("floor", (), "boto3", "client", "boto3 = module\nboto3.client('dynamodb')\n")


def environment(spec: dict) -> dict[str, str]:
    """What a deployed function sees: the template's variables, credentials, a region."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AWS_", "SITELENS_", "POWERTOOLS_"))
    }
    env.update(resources.function_environment(spec, {}))
    env.update(
        AWS_ACCESS_KEY_ID="AKIDBENCHMARK",
        AWS_SECRET_ACCESS_KEY="benchmark",
        AWS_SESSION_TOKEN="benchmark",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_REGION="us-east-1",
        SITELENS_SIGNING_KEYS="benchmark-signing-key",
        # /opt and /var/task are read-only on Lambda: nothing gets written at import.
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.pop("PYTHONPATH", None)
    return env


def compile_bytecode() -> None:
    """What the layer build does (`compileall`), for the layer, the functions and the peers.

    Timestamp-checked .pyc files (not the build's unchecked-hash): these are working copies
    that others edit, and a stale unchecked .pyc would run old code in their tests.
    """
    paths = [LAYER / "sitelens", ROOT / "functions", ROOT / "tests" / "bench"]
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *map(str, paths)],
        check=True,
        capture_output=True,
    )


@dataclass(frozen=True)
class Init:
    ms: float  # wall clock, what Lambda bills as init
    cpu_ms: float  # this process's CPU time: what the noise of other processes leaves out
    modules: int
    uncompiled: list[str]  # modules imported without a .pyc next to them
    imports: str  # the set of modules imported, hashed: two inits alike do the same work


def init(subject: Subject, env: dict[str, str]) -> Init:
    script = _SCRIPT.format(
        paths=list(subject.paths), module=subject.module, attr=subject.attr, clients=subject.clients
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise RuntimeError(last)
    return Init(*json.loads(done.stdout))


def test_cold_start() -> None:
    spec = template.load()
    env = environment(spec)
    if not timing.QUICK:
        compile_bytecode()
    handlers = handler_subjects(spec)
    if timing.QUICK:  # one run of one handler, no warm-up round, no compileall
        handlers = [h for h in handlers if h.name in QUICK_HANDLERS] or handlers[:3]
    subjects = [FLOOR, *PEERS, *handlers]

    for subject in subjects[: len(PEERS) + 2]:  # warm-up: the OS file cache of the layer
        if not timing.QUICK:
            init(subject, env)
    broken: dict[str, str] = {}
    first: dict[str, Init] = {}  # the first round, which also finds what does not import
    for subject in subjects:
        try:
            first[subject.name] = init(subject, env)
        except RuntimeError as err:
            broken[subject.name] = str(err)
    working = [s for s in subjects if s.name not in broken]
    assert FLOOR.name not in broken and not {p.name for p in PEERS} & broken.keys(), broken
    # Handlers that import the same modules and create the same clients do the same work
    # at init: one of them is timed for all (many operations of an area share their imports).
    alike: dict[str, str] = {}
    timed: dict[tuple[str, str], str] = {}
    for subject in working:
        key = (first[subject.name].imports, subject.clients)
        alike[subject.name] = timed.setdefault(key, subject.name)
    measured = [s for s in working if alike[s.name] == s.name]

    samples: dict[str, list[Init]] = {s.name: [first[s.name]] for s in measured}
    for _ in range(timing.RUNS - 1):  # round-robin, so drift spreads over every subject
        for subject in measured:
            samples[subject.name].append(init(subject, env))
    samples = {s.name: samples[alike[s.name]] for s in working}
    wall = {name: timing.median([i.ms for i in runs]) for name, runs in samples.items()}
    cpu = {name: timing.median([i.cpu_ms for i in runs]) for name, runs in samples.items()}

    def summary(figures: dict[str, float]) -> dict[str, float | str]:
        handlers = {k: v for k, v in figures.items() if k not in ("floor", *PEER_NAMES)}
        worst = max(handlers, key=handlers.__getitem__)
        return {
            "floor": round(figures["floor"], 1),
            "sitelens_max": round(handlers[worst], 1),
            "sitelens_median": round(timing.median(list(handlers.values())), 1),
            "fastapi_mangum": round(figures["fastapi_mangum"], 1),
            "powertools_resolver": round(figures["powertools_resolver"], 1),
            "sitelens_max_handler": worst,
        }

    def per_profile(figures: dict[str, float]) -> dict[str, dict[str, Any]]:
        """The slowest init a request can meet under each profile, and what SnapStart skips."""
        handlers = {k: v for k, v in figures.items() if k not in ("floor", *PEER_NAMES)}
        found = {}
        for profile, restored in snapstart.items():
            paid = {k: v for k, v in handlers.items() if k not in restored} or handlers
            worst = max(paid, key=paid.__getitem__)
            found[profile] = {
                "sitelens_max": round(paid[worst], 1),
                "sitelens_max_handler": worst,
                "snapstart": {name: round(handlers[name], 1) for name in restored},
            }
        return found

    snapstart = {p: [n for n in names if n in wall] for p, names in snapstarted(spec).items()}
    report.RESULTS["cold_start_ms"] = summary(wall)
    report.RESULTS["cold_start_profiles"] = per_profile(wall)
    report.CONTEXT["cold_start_cpu_profiles"] = per_profile(cpu)
    report.RESULTS["cold_start_handlers_ms"] = {
        name: round(value, 1)
        for name, value in sorted(wall.items())
        if name not in ("floor", *PEER_NAMES)
    }
    report.CONTEXT["cold_start_cpu_ms"] = summary(cpu)
    report.CONTEXT["cold_start_cpu_handlers_ms"] = {
        name: round(value, 1) for name, value in sorted(cpu.items())
    }
    report.CONTEXT["cold_start_modules"] = {name: i.modules for name, i in first.items()}
    uncompiled = sorted({path for i in first.values() for path in i.uncompiled})
    report.CONTEXT["cold_start_uncompiled"] = uncompiled
    report.CONTEXT["cold_start_layer"] = str(LAYER)
    report.CONTEXT["cold_start_method"] = (
        "fresh `python -c` per run; timer from before the first import to after the clients "
        "its IAM policy needs exist; compileall first; a warm-up of the floor, the peers and one "
        "handler; runs round-robin; "
        f"handlers importing the same modules with the same clients timed once for all "
        f"({len(measured)} timed of {len(working)})"
    )
    for name, why in broken.items():
        report.NOTES.append(f"cold start: {name} not measured ({why})")
    if uncompiled:
        report.NOTES.append(f"cold start: {len(uncompiled)} modules imported without bytecode")
