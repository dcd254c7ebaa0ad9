"""Byte-for-byte checks of clients.render.qhost against the Grid Engine 8.1.9 reference output."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, strategies as st

from clients.render import qhost as rh

from tests.reference import REFERENCE as REF
START = 1795315140.0  # 2026-11-22 02:39:00 UTC
TYPES = {"arch": "STRING", "m_topology": "STRING", "m_topology_inuse": "STRING", "num_proc": "INT",
         "m_socket": "INT", "m_core": "INT", "m_thread": "INT", "mem_free": "MEMORY",
         "swap_free": "MEMORY", "virtual_free": "MEMORY", "mem_total": "MEMORY",
         "swap_total": "MEMORY", "virtual_total": "MEMORY", "mem_used": "MEMORY",
         "swap_used": "MEMORY", "virtual_used": "MEMORY"}


@pytest.fixture(autouse=True)
def _in_utc(utc: None) -> None:
    """Every test here renders times as the reference shows them (UTC)."""



def ref(name: str) -> str:
    return (REF / name).read_text()


def reference_resources() -> list[dict[str, Any]]:
    """The vm host's complex values, read back from the reference ``qhost -F`` lines."""
    out = []
    for line in ref("qhost-F.out").splitlines():
        if line.startswith("   hl:"):
            name, value = line.strip()[3:].split("=", 1)
            out.append({"name": name, "dominance": "hl", "type": TYPES.get(name, "DOUBLE"), "value": value})
    return out


def vm_host(**extra: Any) -> dict[str, Any]:
    resources = reference_resources()
    raw = {r["name"]: r["value"] for r in resources}
    load = {key: raw[key] for key in ("arch", "load_avg", "mem_total", "mem_used", "swap_total", "swap_used")}
    # integer load values are reported as plain integers ("2"), -F shows them as doubles
    load.update({key: str(int(float(raw[key]))) for key in ("num_proc", "m_socket", "m_core", "m_thread")})
    host = {"name": "vm", "load_values": load, "resources": resources,
            "queues": [{"name": "all.q", "qtype": "BIP", "resv": 0, "used": 3, "total": 4, "states": ""}],
            "jobs": []}
    host.update(extra)
    return host


def hosts(**extra: Any) -> list[dict[str, Any]]:
    return [{"name": "global", "load_values": {}, "resources": [], "queues": [], "jobs": []}, vm_host(**extra)]


def test_plain_matches_reference() -> None:
    assert rh.render_hosts(hosts()) == ref("qhost.out")


def test_queues_match_reference() -> None:
    assert rh.render_hosts(hosts(), show_queues=True) == ref("qhost-q.out")


def test_resources_match_reference() -> None:
    assert rh.render_hosts(hosts(), show_resources=True) == ref("qhost-F.out")


def test_xml_matches_reference() -> None:
    assert rh.render_hosts_xml(hosts()) == ref("qhost-xml.out")


def test_resources_xml_matches_reference() -> None:
    assert rh.render_hosts_xml(hosts(), show_resources=True) == ref("qhost-F-xml.out")


def test_named_resources_get_the_label() -> None:
    out = rh.render_hosts(hosts(), resource_names=["mem_free", "arch"])
    assert out.endswith("    Host Resource(s):      hl:arch=lx-amd64\n   hl:mem_free=23.330G\n")
    assert "load_avg=" not in out


def job(job_id: int, **extra: Any) -> dict[str, Any]:
    row = {"job_id": job_id, "task_id": None, "prio": 0.5, "name": "running_job", "owner": "sgeuser",
           "state": "r", "submit_time": START - 75, "start_time": START, "queue": "all.q@vm",
           "slots": 1, "master": True}
    row.update(extra)
    return row


def test_jobs_listing_has_header_and_master_column() -> None:
    out = rh.render_hosts(hosts(jobs=[job(95), job(97, task_id=2, name="array_job")]), show_jobs=True)
    lines = out.splitlines()
    assert lines[4] == ("   job-ID  prior   name       user         state submit/start at     "
                        "queue      master ja-task-ID ")
    assert lines[5] == "   " + "-" * 94
    assert lines[6] == "        95 0.50000 running_jo sgeuser      r     11/22/2026 02:39:00 all.q@vm   MASTER        "
    assert lines[7].endswith("all.q@vm   MASTER 2")


def test_parallel_job_prints_slave_lines_and_no_header_with_queues() -> None:
    out = rh.render_hosts(hosts(jobs=[job(99, slots=3, master=False)]), show_jobs=True, show_queues=True)
    lines = out.splitlines()
    assert lines[4].startswith("   all.q                BIP   0/3/4")
    assert lines[5] == "        99 0.50000 running_jo sgeuser      r     11/22/2026 02:39:00 SLAVE         "
    assert lines[6] == " " * 69 + "SLAVE         "
    assert len(lines) == 8 and "job-ID" not in out


def test_jobs_and_queues_xml() -> None:
    out = rh.render_hosts_xml(hosts(jobs=[job(97, task_id=1)]), show_jobs=True, show_queues=True)
    assert (" <queue name='all.q'>\n   <queuevalue qname='all.q' name='qtype_string'>BIP</queuevalue>\n"
            "   <queuevalue qname='all.q' name='slots_used'>3</queuevalue>\n") in out
    assert "   <jobvalue jobid='97' name='priority'>'0.500000'</jobvalue>\n" in out
    assert "   <jobvalue jobid='97' name='start_time'>1795315140</jobvalue>\n" in out
    assert "name='queue_name'" not in out and "name='taskid'>1</jobvalue>\n </job>\n </host>" in out


def test_missing_values_print_dashes_and_long_names_are_kept() -> None:
    # "12.06K" is cut to the 5 characters of the LOAD column, as %5.5s does in 8.1.9
    host = {"name": "a-very-long-hostname.example.com", "load_values": {"load_avg": "12345"}}
    line = rh.render_hosts([host]).splitlines()[2]
    assert line == "a-very-long-hostname.example.com -               -    -    -    - 12.06       -       -       -       -"


def test_resource_value_types() -> None:
    assert rh.resource_value({"type": "TIME", "value": "1:2:3"}) == "01:02:03"
    assert rh.resource_value({"type": "TIME", "value": "90"}) == "00:01:30"
    assert rh.resource_value({"type": "BOOL", "value": "TRUE"}) == "1.000000"
    assert rh.resource_value({"type": "MEMORY", "value": "1g"}) == "953.674M"
    assert rh.resource_value({"type": "MEMORY", "value": "infinity"}) == "infinity"
    assert rh.reformat_value("nonsense", 1) == "?E"


@given(st.floats(min_value=0, max_value=1e15, allow_nan=False), st.sampled_from("kKmMgGtT"))
def test_parse_memory_suffixes(number: float, suffix: str) -> None:
    value = rh.parse_memory(f"{number}{suffix}")
    assert value is not None
    base = 1000.0 if suffix.islower() else 1024.0
    assert value == pytest.approx(number * base ** ("kmgt".index(suffix.lower()) + 1))


# ---- -ncb: 8.1.9's output without the topology columns (captured together:
# tests/data/reference/lists/qhost-ncb* beside qhost-plain, qhost-xml2)

def _without_topology(text: str) -> str:
    """8.1.9's plain qhost without NSOC NCOR NTHR (text) or m_socket m_core m_thread (XML)."""
    lines = []
    for line in text.splitlines(keepends=True):
        if any(f"<hostvalue name='{k}'>" in line for k in ("m_socket", "m_core", "m_thread")):
            continue
        if line.startswith("-" * 94):
            line = "-" * 79 + "\n"
        elif not line.startswith(("<", " ")):
            line = line[:41] + line[56:]  # (the three 5-wide columns after NCPU)
        lines.append(line)
    return "".join(lines)


def test_ncb_drops_the_topology_as_8_1_9_does() -> None:
    lists = REF / "lists"
    assert _without_topology((lists / "qhost-plain.out").read_text()) == \
        (lists / "qhost-ncb.out").read_text()
    assert _without_topology((lists / "qhost-xml2.out").read_text()) == \
        (lists / "qhost-ncb-xml.out").read_text()
    assert rh.render_hosts(hosts(), topology=False) == _without_topology(ref("qhost.out"))
    assert rh.render_hosts_xml(hosts(), topology=False) == _without_topology(ref("qhost-xml.out"))
