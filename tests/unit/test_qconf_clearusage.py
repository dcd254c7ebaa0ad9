"""``qconf -clearusage [user_list]`` on the command line (clients.qconf.usage): what it
asks the qmaster, its silence on success, a refusal's words and exit status."""
from __future__ import annotations

from typing import Any

import pytest

from clients.api import ClientError
from clients.qconf.main import QconfError, Session
from clients.qconf.main import main as qconf_main
from clients.qconf.main import run as qconf_run


class FakeClient:
    def __init__(self, refusal: str = "") -> None:
        self.asked: list[list[str] | None] = []
        self.refusal = refusal

    def clear_usage(self, users: list[str] | None = None) -> dict[str, Any]:
        self.asked.append(users)
        if self.refusal:
            raise ClientError("denied", self.refusal)
        return {}


def test_all_or_named_users_and_silent(capsys: pytest.CaptureFixture[str]) -> None:
    client = FakeClient()
    session = Session(lambda: client)
    assert qconf_run(["-clearusage"], session) == 0
    assert qconf_run(["-clearusage", "alice,bob"], session) == 0
    assert client.asked == [[], ["alice", "bob"]]
    assert capsys.readouterr() == ("", "")


def test_a_following_option_is_no_user_list() -> None:
    client = FakeClient()
    with pytest.raises(QconfError):  # (-bogus: after the usage was cleared, as in 8.1.9)
        qconf_run(["-clearusage", "-bogus"], Session(lambda: client))
    assert client.asked == [[]]


def test_a_refusal_ends_qconf_with_status_1(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    client = FakeClient('denied: "bob" must be manager for this operation')
    monkeypatch.setattr("clients.qconf.main.Session",
                        lambda factory: Session(lambda: client))
    assert qconf_main(["-clearusage", "-sql"]) == 1
    assert capsys.readouterr() == ("", 'denied: "bob" must be manager for this operation\n')
    assert client.asked == [[]]
