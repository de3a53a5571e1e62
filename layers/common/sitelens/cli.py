"""`sitelens keys create|list|revoke`: API keys, against the configured accounts table.

The table comes from `--stack` (a deployed stack), `--local` (a running `make serve`)
or SITELENS_ACCOUNTS_TABLE with the usual AWS configuration.
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def _configure(args: argparse.Namespace) -> None:
    if args.local:
        from sitelens.local.server import HOST, LOCAL_AWS_PORT

        os.environ.setdefault("AWS_ENDPOINT_URL_DYNAMODB", f"http://{HOST}:{LOCAL_AWS_PORT}")
        os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
        os.environ["SITELENS_ACCOUNTS_TABLE"] = "AccountsTable"
    elif args.stack:
        import boto3

        answer = boto3.client("cloudformation").describe_stack_resource(
            StackName=args.stack, LogicalResourceId="AccountsTable"
        )
        os.environ["SITELENS_ACCOUNTS_TABLE"] = answer["StackResourceDetail"]["PhysicalResourceId"]


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
    keys.add_parser("list", help="list keys (never the keys themselves)")
    revoke = keys.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id")
    args = parser.parse_args(argv)
    _configure(args)

    from botocore.exceptions import EndpointConnectionError

    from sitelens.config import ConfigError

    try:
        return _run(args)
    except EndpointConnectionError:
        print("Cannot reach DynamoDB; is `make serve` running?", file=sys.stderr)
        return 1
    except ConfigError as err:
        print(f"{err} Use --stack or --local, or set it.", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    from sitelens import accounts

    if args.command == "create":
        if args.account:
            account = accounts.get_account(args.account)
            if account is None:
                print(f"No account {args.account}.", file=sys.stderr)
                return 1
        else:
            account = accounts.create_account(args.name)
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


if __name__ == "__main__":
    sys.exit(main())
