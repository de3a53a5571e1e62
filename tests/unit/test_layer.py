"""The layer's build: reproducible from a lock file of pinned, hashed dependencies."""

from __future__ import annotations

import re
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

LAYER = Path(__file__).resolve().parents[2] / "layers" / "common"


def _requirements() -> dict[str, Requirement]:
    lines = (LAYER / "requirements.txt").read_text().splitlines()
    found = (Requirement(line.split("#")[0]) for line in lines if line.split("#")[0].strip())
    return {canonicalize_name(requirement.name): requirement for requirement in found}


def _locked() -> dict[str, tuple[Version, list[str]]]:
    """Each locked package: its pinned version and its hashes."""
    text = (LAYER / "requirements.lock").read_text()
    entries = re.findall(r"^([A-Za-z0-9._-]+)==(\S+)((?:\s*\\\n\s+--hash=\S+)+)", text, re.M)
    return {
        canonicalize_name(name): (Version(version), re.findall(r"--hash=(sha256:\w+)", hashes))
        for name, version, hashes in entries
    }


def test_every_locked_package_is_pinned_with_hashes() -> None:
    text = (LAYER / "requirements.lock").read_text()
    packages = [line for line in text.splitlines() if line and line[0].isalnum()]
    locked = _locked()
    assert len(locked) == len(packages) > 10
    for name, (_, hashes) in locked.items():
        assert hashes, f"{name} has no hash"


def test_the_lock_holds_every_requirement_in_its_range_but_boto3() -> None:
    locked = _locked()
    for name, requirement in _requirements().items():
        if name == "boto3":  # the Lambda runtime provides it
            assert name not in locked
            continue
        assert name in locked, f"{name} is not locked"
        assert requirement.specifier.contains(locked[name][0]), f"{name} {locked[name][0]}"


def test_urllib3_is_at_least_2_6() -> None:
    assert _requirements()["urllib3"].specifier.contains("2.6.0")
    assert not _requirements()["urllib3"].specifier.contains("2.5.0")
    assert _locked()["urllib3"][0] >= Version("2.6")


def test_the_layer_is_built_from_the_lock_file() -> None:
    makefile = (LAYER / "Makefile").read_text()
    build = makefile.split("build-CommonLayer:")[1].split("\n\n")[0]
    assert "--requirement requirements.lock" in build
    assert "--require-hashes" in build
    assert "requirements.txt" not in build


def test_tools_and_the_dev_server_stay_out_of_the_shipped_layer() -> None:
    """Scripts that write the layer's data files live in scripts/; the dev server (local/)
    and the CLI are removed from the build's copy of the package."""
    assert not list((LAYER / "sitelens").rglob("make_*.py")), "tools belong in scripts/"
    makefile = (LAYER / "Makefile").read_text()
    build = makefile.split("build-CommonLayer:")[1].split("\n\n")[0]
    removed = [line.split()[2:] for line in build.splitlines() if line.strip().startswith("rm -rf")]
    paths = {path.strip('"') for line in removed for path in line}
    assert "$(ARTIFACTS_DIR)/python/sitelens/local" in paths
    assert "$(ARTIFACTS_DIR)/python/sitelens/cli.py" in paths
