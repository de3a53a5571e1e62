"""Writes into a customer's own S3 bucket, as the IAM role they granted Sitelens: assumed
with `sts:AssumeRole` and the ExternalId Sitelens gives that customer (docs/exports.md), for
minutes, never kept. Nothing of the stack's is named here: the role and bucket are theirs."""

from __future__ import annotations

import time
from pathlib import Path

from sitelens.data.clients import client


def deliver(path: Path, role_arn: str, external_id: str, bucket: str, key: str) -> None:
    """Put the file into the customer's bucket as the role they granted (assumed with our
    ExternalId for them, for minutes); raises what S3 or STS answered."""
    credentials = client("sts").assume_role(
        RoleArn=role_arn,
        RoleSessionName=f"sitelens-export-{int(time.time())}",
        ExternalId=external_id,
        DurationSeconds=900,
    )["Credentials"]
    import boto3

    theirs = boto3.client(
        "s3",
        aws_access_key_id=credentials["AccessKeyId"],
        aws_secret_access_key=credentials["SecretAccessKey"],
        aws_session_token=credentials["SessionToken"],
    )
    theirs.upload_file(str(path), bucket, key, ExtraArgs={"ACL": "bucket-owner-full-control"})


def delivery_failed(err: Exception) -> bool:
    """Whether `deliver`'s error is the customer's to fix (a role or bucket refused us)."""
    from boto3.exceptions import S3UploadFailedError
    from botocore.exceptions import BotoCoreError, ClientError

    return isinstance(err, ClientError | BotoCoreError | S3UploadFailedError)
