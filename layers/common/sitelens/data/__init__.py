"""Data access: the only code that talks to AWS (DynamoDB, SQS, S3, Firehose, Athena, SES
and Secrets Manager), through one client per service (`clients.client`).

Table names, key shapes, indexes, conditions, transactions and batching live here, behind
named operations in the domain's words (`websites.create_with_claim`,
`reports.delete_with_project`); nothing here knows HTTP or the domain's rules.
"""
