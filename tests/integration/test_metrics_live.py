"""The qmaster's /metrics endpoint in a running cell, turned on and off through
qmaster_params as `pyge up --metrics-port` does, read with prometheus_client's parser."""
from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

from prometheus_client.openmetrics.parser import text_string_to_metric_families

from clients.api import job_request
from deploy.cell import set_metrics_port
from tests.integration.cellutil import client, running_cell, wait_for


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _scrape(port: int) -> dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics",
                                     headers={"Accept": "application/openmetrics-text"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.headers["Content-Type"].startswith("application/openmetrics-text")
        text = answer.read().decode()
    return {fam.name: {(s.name, tuple(sorted(s.labels.items()))): s.value
                       for s in fam.samples}
            for fam in text_string_to_metric_families(text)}


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
    except OSError:
        return True
    return False


def test_metrics_of_a_cell_that_ran_a_job(tmp_path: Path) -> None:
    port = _free_port()
    with running_cell(tmp_path) as local:  # (one job has run)
        assert _refused(port)  # off by default
        assert set_metrics_port(local.cell, port) is None
        with client(local) as cl:
            cl.wait(cl.submit([job_request("/bin/true", binary=True)]), timeout=30)
        got = wait_for(lambda: (m := _scrape(port))["pyge_dispatch_latency_seconds"][
            ("pyge_dispatch_latency_seconds_count", ())] >= 2 and m, 10, "two dispatches")
        assert got["pyge_orders"][("pyge_orders_total", (("result", "accepted"),))] >= 2
        assert got["pyge_scheduler_pass_seconds"][("pyge_scheduler_pass_seconds_count", ())] >= 1
        assert got["pyge_spool_commit_seconds"][("pyge_spool_commit_seconds_count", ())] >= 1
        assert got["pyge_requests"][("pyge_requests_total", (("type", "submit"),))] >= 2
        assert set(got["pyge_execd_up"].values()) == {1.0}
        assert got["pyge_queue_slots_free"]
        assert set_metrics_port(local.cell, 0) is None
        wait_for(lambda: _refused(port), 10, "the endpoint closed")
