"""The one structured logger; it never receives keys, passwords or bodies."""

from aws_lambda_powertools import Logger

logger = Logger(service="sitelens")
