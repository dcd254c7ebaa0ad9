"""-l without a job (qstat -l, qselect -l, qhost -l): common.placement.select over the
dispatch pass's resource view, against what 8.1.9 selected on its captured cell
(tests/data/reference/lists/q{select,stat,host}-l-*: arch=lx-amd64 and slots=1 select
all.q@vm, arch=foo, mem_free=100G and np_load_avg=0.1 nothing, nosuch=1 is an unknown
resource)."""
from __future__ import annotations

import pytest

from common.cluster import queue_instances
from common.placement import select
from common.placement.resources import build_view
from common.resource.complexes import ComplexError
from qmaster.defaults import exechost_defaults, queue_defaults
from tests.reference import REFERENCE as REF
from tests.unit.test_views import reference_load

LISTS = REF / "lists"


def view_and_instances() -> tuple[object, list[tuple[str, str]]]:
    conf = {"queue": {"all.q": queue_defaults("all.q", hostlist="vm", slots="4")},
            "hgrp": {}, "complex": {},
            "exechost": {name: exechost_defaults(name) for name in ("global", "vm")}}
    hosts = {"vm": {"name": "vm", "load": reference_load(), "alive": True}}
    instances = queue_instances(conf, hosts)
    view = build_view(conf, hosts, instances, [])
    return view, [(qi.queue, qi.host) for qi in instances]


def captured(name: str) -> tuple[str, int]:
    return (LISTS / f"{name}.out").read_text(), int((LISTS / f"{name}.rc").read_text())


@pytest.mark.parametrize("name", ["qselect-l-arch", "qselect-l-slots", "qselect-l-bad",
                                  "qselect-l-memfree", "qselect-l-np"])
def test_instances_are_those_8_1_9_selected(name: str) -> None:
    view, instances = view_and_instances()
    text = (LISTS / f"{name}.cmd").read_text().split()[-1]
    chosen = select.selected_instances(select.parse_selection(text, view), view, instances)
    out, rc = captured(name)
    assert ([f"{q}@{h}\n" for q, h in chosen], rc) == (out.splitlines(keepends=True),
                                                        0 if chosen else 1)


@pytest.mark.parametrize("name", ["qhost-l", "qhost-l-memfree"])
def test_hosts_are_those_8_1_9_selected(name: str) -> None:
    view, _ = view_and_instances()
    text = (LISTS / f"{name}.cmd").read_text().split()[-1]
    chosen = select.selected_hosts(select.parse_selection(text, view), view, ["vm"])
    out, _ = captured(name)
    assert chosen == [line.split()[0] for line in out.splitlines()[2:]]


def test_an_unknown_resource_is_refused_in_8_1_9s_words() -> None:
    view, _ = view_and_instances()
    with pytest.raises(ComplexError) as caught:
        select.parse_selection("nosuch=1", view)
    assert f"error: {caught.value}\n" == (LISTS / "qhost-l-unknown.err").read_text()
