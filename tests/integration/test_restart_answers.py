"""What a qmaster restart may and may not do to the requests and jobs around it (issue 26,
item 8), on a live cell whose qmaster is killed with SIGKILL and brought back by
``pyge up``:

- a request made on the qmaster's host while the qmaster is down waits for the restarted
  qmaster and is answered by it. It used to take the CURVE port instead of the dead Unix
  socket, arrive from 127.0.0.1 as host "localhost" (where munged ran), and be refused:
  ``denied: host "localhost" is not a submit host``; without munged it failed at once;
- jobs acknowledged and dispatched around the restart run and end well.

A private munged (where munge is installed) serves both the qmaster and the clients, so
that the path that used to be wrong is there to be taken.
"""
from __future__ import annotations

import signal
import threading
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clients.api import Client, ClientError, current_user
from deploy.cell import LocalCell
from tests.integration.cellutil import (client, kill9, qmaster_port, restart, running_cell,
                                        true_job)
from tests.munged import munged_skip_reason, private_munged

ANSWER_TIMEOUT = 60.0  # the waiting request's own limit: far above any restart


@pytest.fixture
def munge_env(tmp_path_factory: pytest.TempPathFactory,
              monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """PYGE_MUNGE_SOCKET of a private munged, for the daemons ``pyge up`` starts and for
    the clients (nothing where munge is not installed)."""
    if munged_skip_reason() is not None:
        yield
        return
    with private_munged(tmp_path_factory.mktemp("munge")) as sock:
        monkeypatch.setenv("PYGE_MUNGE_SOCKET", sock)
        yield


class Request(threading.Thread):
    """One client request in a thread of its own: its answer or its ClientError."""

    def __init__(self, local: LocalCell, call: Any) -> None:
        super().__init__(daemon=True)
        self.local, self.call = local, call
        self.answer: Any = None
        self.error: ClientError | None = None

    def run(self) -> None:
        try:
            with Client(self.local.cell, timeout=ANSWER_TIMEOUT) as cl:
                self.answer = self.call(cl)
        except ClientError as err:
            self.error = err


def test_a_request_made_while_the_qmaster_restarts_waits_for_it(tmp_path: Path,
                                                                munge_env: None) -> None:
    with running_cell(tmp_path) as local:
        port = qmaster_port(local)
        kill9(local, "qmaster")
        # the dead qmaster's socket file is still there; nobody listens on it
        assert local.cell.qmaster_socket_path.exists()
        submit = Request(local, lambda cl: cl.submit([true_job(job_name="during")]))
        query = Request(local, lambda cl: cl.cluster())
        submit.start()
        query.start()
        assert restart(local, port) == ["qmaster"]
        submit.join(ANSWER_TIMEOUT + 10)
        query.join(ANSWER_TIMEOUT + 10)
        assert submit.error is None, submit.error.message
        assert query.error is None, query.error.message
        [job_id] = submit.answer
        with client(local) as cl:
            [task] = cl.wait([job_id], timeout=30)[job_id]
            [job] = cl.jobs([job_id], include_finished=True)["jobs"]
        assert (task["exit_status"], task["failed"], task["started"]) == (0, 0, True), task
        assert job["owner"] == current_user().name


def test_a_request_to_a_qmaster_that_stays_down_ends_in_its_timeout(tmp_path: Path) -> None:
    """Waiting is bounded by the request's timeout, and says the qmaster is unreachable
    (the code the client API's callers treat as "not acknowledged")."""
    with running_cell(tmp_path) as local:
        kill9(local, "qmaster")
        with pytest.raises(ClientError) as refused, Client(local.cell, timeout=0.5) as cl:
            cl.submit([true_job()])
        assert refused.value.code in ("unreachable", "timeout"), refused.value.message
        assert "unable to contact qmaster" in refused.value.message
