"""`sitelens keys create|list|revoke` against the moto accounts table."""

from __future__ import annotations

import json
import re

import pytest

from sitelens import accounts, cli

CREATED = re.compile(r"^Key (\d+) for account (\d+) \((.*)\); shown only now:$")


def create(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, str, str, str]:
    """Run `keys create`; returns (key id, account id, account name, key)."""
    assert cli.main(["keys", "create", *args]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2, lines
    found = CREATED.match(lines[0])
    assert found, lines[0]
    key_id, account_id, account_name = found.groups()
    return key_id, account_id, account_name, lines[1]


def listed(capsys: pytest.CaptureFixture[str]) -> tuple[str, list[dict[str, object]]]:
    assert cli.main(["keys", "list"]) == 0
    out = capsys.readouterr().out
    return out, [json.loads(line) for line in out.splitlines()]


def test_create_prints_a_new_key_once(aws_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    _, account_id, name, key = create(capsys, "--name", "Agency")
    assert name == "Agency"
    assert key.startswith(accounts.KEY_PREFIX)
    assert len(key) >= len(accounts.KEY_PREFIX) + 43  # 32 random bytes, base64url
    account = accounts.account_for_key(key)
    assert account is not None
    assert (account.id, account.name) == (account_id, "Agency")
    out, _ = listed(capsys)
    assert key not in out


def test_each_create_makes_another_key_and_account(
    aws_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    first = create(capsys, "--name", "One")
    second = create(capsys, "--name", "Two")
    assert first[0] != second[0]
    assert first[1] != second[1]
    assert first[3] != second[3]


def test_list_shows_ids_and_names_never_keys_or_hashes(
    aws_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    made = [create(capsys, "--name", name) for name in ("Agency", "Shop")]
    out, rows = listed(capsys)
    assert [(row["id"], row["name"], row["account"]) for row in rows] == [
        (key_id, name, account_id) for key_id, account_id, name, _ in made
    ]
    for row in rows:
        assert row.keys() == {"id", "name", "account", "created_at", "revoked_at"}
        assert row["revoked_at"] is None
    for _, _, _, key in made:
        assert key not in out
        assert accounts.key_hash(key) not in out


def test_revoke_stops_the_key(aws_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    key_id, _, _, key = create(capsys, "--name", "Agency")
    _, _, _, kept = create(capsys, "--name", "Other")
    assert cli.main(["keys", "revoke", key_id]) == 0
    assert capsys.readouterr().out.strip() == f"Key {key_id} revoked."
    assert accounts.account_for_key(key) is None
    assert accounts.account_for_key(kept) is not None
    _, rows = listed(capsys)
    revoked = {row["id"]: row["revoked_at"] for row in rows}
    assert revoked[key_id] is not None


def test_revoke_unknown_id_fails(aws_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["keys", "revoke", "999"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "No key 999." in captured.err


def test_account_adds_a_key_to_an_existing_account(
    aws_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    first_id, account_id, name, first = create(capsys, "--name", "Agency")
    second_id, same_account, same_name, second = create(
        capsys, "--name", "CI", "--account", account_id
    )
    assert same_account == account_id
    assert same_name == name == "Agency"
    assert second_id != first_id
    assert second != first
    for key in (first, second):
        account = accounts.account_for_key(key)
        assert account is not None
        assert account.id == account_id
    _, rows = listed(capsys)
    assert {row["id"]: row["name"] for row in rows} == {first_id: "Agency", second_id: "CI"}
    assert cli.main(["keys", "revoke", first_id]) == 0
    assert accounts.account_for_key(first) is None
    assert accounts.account_for_key(second) is not None


def test_account_must_exist(aws_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["keys", "create", "--name", "CI", "--account", "42"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "No account 42." in captured.err
    _, rows = listed(capsys)
    assert rows == []


def test_without_an_accounts_table_it_says_which_setting_is_missing(
    aws_env: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sitelens.core import config

    monkeypatch.delenv("SITELENS_ACCOUNTS_TABLE")
    config.reset()
    try:
        assert cli.main(["keys", "list"]) == 1
    finally:
        config.reset()
    assert "SITELENS_ACCOUNTS_TABLE is not set" in capsys.readouterr().err
