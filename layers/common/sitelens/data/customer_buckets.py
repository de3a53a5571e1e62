"""Writes into (exports) and reads from (imports) a customer's own S3 bucket, as the IAM role
they granted Sitelens: assumed with `sts:AssumeRole` and the ExternalId Sitelens gives that
customer (docs/exports.md, docs/imports.md), for minutes, never kept. Nothing of the stack's
is named here: the role and bucket are theirs."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from sitelens.data.clients import client


def _their_s3(role_arn: str, external_id: str, purpose: str) -> Any:
    """An S3 client acting as the customer's role (assumed with our ExternalId for them)."""
    credentials = client("sts").assume_role(
        RoleArn=role_arn,
        RoleSessionName=f"sitelens-{purpose}-{int(time.time())}",
        ExternalId=external_id,
        DurationSeconds=900,
    )["Credentials"]
    import boto3

    return boto3.client(
        "s3",
        aws_access_key_id=credentials["AccessKeyId"],
        aws_secret_access_key=credentials["SecretAccessKey"],
        aws_session_token=credentials["SessionToken"],
    )


def fetch(
    role_arn: str, external_id: str, bucket: str, key: str, path: Path, max_bytes: int
) -> int | None:
    """Copy the customer's object to `path` as the role they granted; its size, or None
    (nothing written) when it is larger than `max_bytes`. Raises what S3 or STS answered."""
    theirs = _their_s3(role_arn, external_id, "import")
    size = int(theirs.head_object(Bucket=bucket, Key=key)["ContentLength"])
    if size > max_bytes:
        return None
    theirs.download_file(bucket, key, str(path))
    return size


def deliver(path: Path, role_arn: str, external_id: str, bucket: str, key: str) -> None:
    """Put the file into the customer's bucket as the role they granted (assumed with our
    ExternalId for them, for minutes); raises what S3 or STS answered."""
    theirs = _their_s3(role_arn, external_id, "export")
    theirs.upload_file(str(path), bucket, key, ExtraArgs={"ACL": "bucket-owner-full-control"})


def delivery_failed(err: Exception) -> bool:
    """Whether `deliver`'s (or `fetch`'s) error is the customer's to fix (a role or bucket
    refused us)."""
    from boto3.exceptions import S3UploadFailedError
    from botocore.exceptions import BotoCoreError, ClientError

    return isinstance(err, ClientError | BotoCoreError | S3UploadFailedError)
