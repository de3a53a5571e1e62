"""Data access: the only code that talks to DynamoDB and SQS.

Table names, key shapes, indexes, conditions, transactions and batching live here, behind
named operations in the domain's words (`websites.create_with_claim`,
`reports.delete_and_update_project`); nothing here knows HTTP or the domain's rules.
"""
