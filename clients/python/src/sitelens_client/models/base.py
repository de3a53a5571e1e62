"""What every model of the client shares."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class SitelensModel(BaseModel):
    """A record as the API shows it. Fields the API adds after this client was built are kept
    (`extra="allow"`), so an older client still reads newer answers."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
