"""`sitelens keys create|list|revoke`: API keys; `sitelens accounts update`: an account's
email address and digest cadence; `sitelens digests send|outbox`: send the digests of the
last complete period now, and list the emails `make serve` caught; `sitelens signing-keys
rotate|list`: a new active key for every token signed, and the keyring's keys (never their
secrets).

The table (and the keyring) comes from `--stack` (a deployed stack), `--local` (a running
`make serve`) or SITELENS_ACCOUNTS_TABLE (SITELENS_SIGNING_KEYS_ARN, _PARAMETER or _FILE)
with the usual AWS configuration: the operator's credentials, which may overwrite the
keyring where the functions' may not. An operator's tool: like
`local/`, it is left out of the Lambda layer's build.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any


def _configure(args: argparse.Namespace) -> None:
    if args.local:
        from sitelens.local.server import (
            ANALYTICS_PORT,
            HOST,
            LOCAL_AWS_PORT,
            OUTBOX,
            local_keys_file,
        )

        os.environ.setdefault("AWS_ENDPOINT_URL_DYNAMODB", f"http://{HOST}:{LOCAL_AWS_PORT}")
        os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
        from sitelens.local import resources, template

        # every table by its local name, as `make serve` names them (digests read several),
        # unless set: make serve keeps a table name set in its environment too
        for name, value in resources.table_environment(template.load(), {}).items():
            os.environ.setdefault(name, value)
        os.environ.setdefault("SITELENS_MAIL_OUTBOX", str(OUTBOX))
        os.environ.setdefault("SITELENS_ANALYTICS_BASE_URL", f"http://{HOST}:{ANALYTICS_PORT}")
        os.environ.setdefault("SITELENS_SIGNING_KEYS_FILE", local_keys_file())
        _use_local_warehouse()
    elif args.stack:
        import boto3

        stack = boto3.client("cloudformation")
        for variable, resource in _STACK_RESOURCES[args.area]:
            answer = stack.describe_stack_resource(StackName=args.stack, LogicalResourceId=resource)
            os.environ[variable] = answer["StackResourceDetail"]["PhysicalResourceId"]
        if args.area == "signing-keys":
            _use_stack_keyring(stack, args.stack)


def _use_stack_keyring(stack: Any, name: str) -> None:
    """The stack's keyring: its secret's ARN, or under CostProfile=lean the name of its
    parameter (`/<stack>/signing-keys`, as the template names it)."""
    (found,) = stack.describe_stacks(StackName=name)["Stacks"]
    given = {p["ParameterKey"]: p.get("ParameterValue") for p in found.get("Parameters", [])}
    if given.get("CostProfile") == "lean":
        os.environ["SITELENS_SIGNING_KEYS_PARAMETER"] = f"/{found['StackName']}/signing-keys"
        return
    answer = stack.describe_stack_resource(StackName=name, LogicalResourceId="SigningKeys")
    os.environ["SITELENS_SIGNING_KEYS_ARN"] = answer["StackResourceDetail"]["PhysicalResourceId"]


# What `--stack` looks up for each area: a variable and the template's resource it names.
_STACK_RESOURCES = {
    "keys": [("SITELENS_ACCOUNTS_TABLE", "AccountsTable")],
    "accounts": [("SITELENS_ACCOUNTS_TABLE", "AccountsTable")],
    "digests": [("SITELENS_ACCOUNTS_TABLE", "AccountsTable")],
    "signing-keys": [],  # the secret, or the parameter: `_use_stack_keyring`
}


def _use_local_warehouse() -> None:
    """The warehouse `make serve` keeps on disk (SITELENS_LOCAL_WAREHOUSE_DIR, else its
    folder), read by DuckDB, since digests ask the query API for their figures; an empty
    one when make serve keeps its data in memory (that warehouse is its process's own)."""
    import tempfile
    from pathlib import Path

    from sitelens.data import warehouse
    from sitelens.local.server import WAREHOUSE_DIR
    from sitelens.local.warehouse import LocalWarehouse

    given = os.environ.get("SITELENS_LOCAL_WAREHOUSE_DIR")
    on_disk = (os.environ.get("SITELENS_LOCAL_DB") or "disk") == "disk"
    folder = Path(given) if given else WAREHOUSE_DIR if on_disk else None
    local = LocalWarehouse(folder or Path(tempfile.mkdtemp(prefix="sitelens-warehouse-")))
    warehouse.use(warehouse.LocalEngine("duckdb", local.run, local.write))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sitelens", description=__doc__)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--stack", help="name of a deployed Sitelens stack")
    where.add_argument(
        "--local",
        action="store_true",
        help="the tables of a running `make serve` (its SITELENS_AWS_PORT, default 3002)",
    )
    commands = parser.add_subparsers(dest="area", required=True)
    keys = commands.add_parser("keys", help="manage API keys").add_subparsers(
        dest="command", required=True
    )
    create = keys.add_parser("create", help="create a key (and an account) and print it once")
    create.add_argument("--name", required=True, help="name of the key and of a new account")
    create.add_argument("--account", help="add the key to this existing account id instead")
    create.add_argument("--email", help="the new account's address for its email digests")
    keys.add_parser("list", help="list keys (never the keys themselves)")
    revoke = keys.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id")
    accounts_area = commands.add_parser("accounts", help="manage accounts").add_subparsers(
        dest="command", required=True
    )
    update = accounts_area.add_parser("update", help="set an account's email and digests")
    update.add_argument("account_id")
    update.add_argument("--email", help='where its digests go ("" for none)')
    update.add_argument("--digest", choices=["weekly", "monthly"], help="how often")
    digests_area = commands.add_parser("digests", help="email digests").add_subparsers(
        dest="command", required=True
    )
    send = digests_area.add_parser(
        "send", help="send the last complete period's digests now (each at most once)"
    )
    send.add_argument("--cadence", choices=["weekly", "monthly"], help="only these")
    digests_area.add_parser("outbox", help="list the emails make serve caught")
    signing_area = commands.add_parser(
        "signing-keys", help="the keyring every token is signed with"
    ).add_subparsers(dest="command", required=True)
    rotate = signing_area.add_parser(
        "rotate", help="make a new active key; the previous one verifies --overlap-days more"
    )
    rotate.add_argument(
        "--overlap-days",
        type=float,
        default=None,
        help="days tokens of the previous key still verify (default 90, the longest token; "
        "0 for a key that leaked)",
    )
    signing_area.add_parser("list", help="list the keys (never their secrets)")
    args = parser.parse_args(argv)
    _configure(args)

    from botocore.exceptions import EndpointConnectionError

    from sitelens.core import scopes
    from sitelens.core.config import ConfigError

    try:
        with scopes.within(scopes.SYSTEM):  # an operator's command: no key, no limit
            return _run(args)
    except EndpointConnectionError:
        print("Cannot reach DynamoDB; is `make serve` running?", file=sys.stderr)
        return 1
    except ConfigError as err:
        print(f"{err} Use --stack or --local, or set it.", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    if args.area == "accounts":
        return _update_account(args)
    if args.area == "signing-keys":
        return _signing_keys(args)
    if args.area == "digests":
        return _digests(args)
    from sitelens import accounts

    if args.command == "create":
        if args.account:
            account = accounts.get_account(args.account)
            if account is None:
                print(f"No account {args.account}.", file=sys.stderr)
                return 1
        else:
            account = accounts.create_account(args.name)
        if args.email:
            try:
                account = accounts.set_contact(account, args.email)
            except ValueError as err:
                print(err, file=sys.stderr)
                return 1
        key_id, key = accounts.add_key(account, args.name)
        print(f"Key {key_id} for account {account.id} ({account.name}); shown only now:")
        print(key)
    elif args.command == "list":
        for row in accounts.list_keys():
            print(json.dumps(row))
    elif not accounts.revoke_key(args.key_id):
        print(f"No key {args.key_id}.", file=sys.stderr)
        return 1
    else:
        print(f"Key {args.key_id} revoked.")
    return 0


def _update_account(args: argparse.Namespace) -> int:
    from sitelens import accounts

    account = accounts.get_account(args.account_id)
    if account is None:
        print(f"No account {args.account_id}.", file=sys.stderr)
        return 1
    email = account.email if args.email is None else (args.email or None)
    try:
        account = accounts.set_contact(account, email, args.digest)
    except ValueError as err:
        print(err, file=sys.stderr)
        return 1
    print(json.dumps(account.public()))
    return 0


def _signing_keys(args: argparse.Namespace) -> int:
    from sitelens.tokens import signing_keys

    if args.command == "list":
        keyring = signing_keys.current(fresh_after=0)
    else:
        days = signing_keys.DEFAULT_OVERLAP_DAYS if args.overlap_days is None else args.overlap_days
        if not 0 <= days <= signing_keys.DEFAULT_OVERLAP_DAYS:
            print(
                f"--overlap-days is from 0 to {signing_keys.DEFAULT_OVERLAP_DAYS}.", file=sys.stderr
            )
            return 1
        keyring = signing_keys.rotate(round(days * 86_400))
        print(f"Key {keyring.active.kid} is active; tokens of the others verify until their end.")
    for row in keyring.shown():
        print(json.dumps(row))
    return 0


def _digests(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from sitelens import digests
    from sitelens.core import clock

    if args.command == "outbox":
        return _list_outbox()
    today = clock.now().date()
    outcome = digests.Outcome()
    for cadence in [args.cadence] if args.cadence else ["weekly", "monthly"]:
        digests.send_all(digests.last_complete(cadence, today), outcome)
    print(json.dumps(asdict(outcome)))
    return 0


def _list_outbox() -> int:
    """The caught emails, newest last: when, to whom, the subject and the file."""
    from email import message_from_bytes
    from pathlib import Path

    folder = Path(os.environ.get("SITELENS_MAIL_OUTBOX", ""))
    files = sorted(folder.glob("*.eml")) if folder.name else []
    if not files:
        print(f"No emails in {folder}.")
    for path in files:
        message = message_from_bytes(path.read_bytes())
        print(f"{path.name[:15]}  {message['To']}  {message['Subject']}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
