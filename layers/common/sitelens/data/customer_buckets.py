"""A customer's own S3 bucket, as the IAM role they granted Sitelens: assumed with
`sts:AssumeRole` and the ExternalId Sitelens gives that customer (docs/exports.md), for
minutes, never kept: exports are written into it (`deliver`), imports' files read from it
(`fetch`: docs/imports.md), access logs read from it (`Reader`: docs/crawlers.md). Nothing of
the stack's is named here: the role and bucket are theirs."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitelens.data.clients import client


def _theirs(role_arn: str, external_id: str, purpose: str) -> Any:
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
    theirs = _theirs(role_arn, external_id, "import")
    size = int(theirs.head_object(Bucket=bucket, Key=key)["ContentLength"])
    if size > max_bytes:
        return None
    theirs.download_file(bucket, key, str(path))
    return size


def deliver(path: Path, role_arn: str, external_id: str, bucket: str, key: str) -> None:
    """Put the file into the customer's bucket as the role they granted (assumed with our
    ExternalId for them, for minutes); raises what S3 or STS answered."""
    theirs = _theirs(role_arn, external_id, "export")
    theirs.upload_file(str(path), bucket, key, ExtraArgs={"ACL": "bucket-owner-full-control"})


@dataclass(frozen=True)
class Found:
    """An object of the customer's bucket: its key and size."""

    key: str
    size: int


class Reader:
    """The customer's bucket read as their role, assumed once for a run of reads."""

    def __init__(self, role_arn: str, external_id: str, bucket: str) -> None:
        self.s3 = _theirs(role_arn, external_id, "logs")
        self.bucket = bucket

    def keys_after(self, prefix: str, after: str, limit: int) -> list[Found]:
        """Up to `limit` objects under `prefix` whose keys sort after `after`, in key order."""
        request: dict[str, Any] = {"Bucket": self.bucket, "Prefix": prefix, "MaxKeys": limit}
        if after:
            request["StartAfter"] = after
        page = self.s3.list_objects_v2(**request)
        return [Found(i["Key"], int(i["Size"])) for i in page.get("Contents", [])][:limit]

    def read(self, key: str) -> bytes:
        """An object's bytes (the caller checked its size)."""
        return bytes(self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read())


def delivery_failed(err: Exception) -> bool:
    """Whether `deliver`'s (or `fetch`'s) error is the customer's to fix (a role or bucket
    refused us)."""
    from boto3.exceptions import S3UploadFailedError
    from botocore.exceptions import BotoCoreError, ClientError

    return isinstance(err, ClientError | BotoCoreError | S3UploadFailedError)
