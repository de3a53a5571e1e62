"""White label: a project's (or the account's) brand, its logo fetched once through the SSRF
guard and stored, what share pages, emails and PDFs draw with it (`for_project`,
`shown`), and the origins allowed to embed its share pages. Not who receives mail
(`sitelens.recipients`)."""

from sitelens.brands.records import (
    Brand,
    Shown,
    delete,
    for_project,
    get,
    put,
    shown,
)

__all__ = ["Brand", "Shown", "delete", "for_project", "get", "put", "shown"]
