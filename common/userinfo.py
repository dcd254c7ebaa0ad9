"""Who sends a request: one small record that the commands (at start-up, without
``dataclasses``) and the qmaster share."""
from __future__ import annotations

from common.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class UserInfo(Record, frozen=True):
    """Who sends a request, as the client states it."""

    name: str
    uid: int
    group: str
    gid: int
    host: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "uid": self.uid, "group": self.group, "gid": self.gid,
                "host": self.host}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "UserInfo":
        return cls(str(data.get("name", "")), int(data.get("uid", -1)),
                   str(data.get("group", "")), int(data.get("gid", -1)),
                   str(data.get("host", "")))
