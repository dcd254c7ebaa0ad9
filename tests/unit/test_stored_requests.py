"""``-l`` lists as Grid Engine 8.1.9 stores and refuses them, replayed from the captures in
tests/data/reference/submit (the README there has the tables): each ``qsub -l`` case runs
through our qsub option parser and the qmaster's ``requests_as_stored``, and must give the
``hard/soft resource_list`` lines 8.1.9's ``qstat -j`` printed, or its refusal."""
from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from clients.qsub.options import QsubError, parse_qsub
from common.resource.complexes import (ComplexError, complexes_from_rows, requests_as_stored)
from tests.reference import REFERENCE

CAPTURES = REFERENCE / "submit"
# cases whose outcome depends on more than the -l list and the complex list
NOT_REPLAYED = {
    "qsub-l-chost": "HOST values are resolved by the resolver of the capturing VM",
    "qsub-l-chost-VM": "HOST values are resolved by the resolver of the capturing VM",
    "qsub-l-chost-localhost": "HOST values are resolved by the resolver of the capturing VM",
    "qsub-l-chost-vm": "HOST values are resolved by the resolver of the capturing VM",
    "qsub-l-hostname": "HOST values are resolved by the resolver of the capturing VM",
    "qsub-l-hostname-upper": "HOST values are resolved by the resolver of the capturing VM",
    "qsub-l-hostname-unknown": "checked at submission against the exec hosts (test_submit_verify)",
    "qsub-l-cs-requestable-NO": "captured after cstr was made non-requestable",
    "qsub-l-cstr-requestable-NO": "captured after cstr was made non-requestable",
    "qsub-l-w-e-cint-unavailable": "-w e: the verification, not the list",
    "qsub-l-empty": "8.1.9 prints an empty 'hard resource_list:' line for -l ''",
}


def _attrs() -> list:
    rows = [line.split() for line in (CAPTURES / "qconf-sc-test-attributes.txt")
            .read_text().splitlines() if line and not line.startswith("#")]
    return complexes_from_rows(rows)


def _cases() -> list[str]:
    return sorted({p.name[:-4] for p in CAPTURES.glob("qsub-l-*.cmd")})


def _listed(text: str, label: str) -> str | None:
    for line in text.splitlines():
        if line.startswith(f"{label} resource_list:"):
            return line.split(":", 1)[1].strip()
    return None


@pytest.mark.parametrize("case", _cases())
def test_lists_are_stored_and_refused_as_8_1_9_does(case: str) -> None:
    if case in NOT_REPLAYED:
        pytest.skip(NOT_REPLAYED[case])
    argv = shlex.split((CAPTURES / f"{case}.cmd").read_text().strip()[2:])
    rc = int((CAPTURES / f"{case}.rc").read_text())
    try:
        opts = parse_qsub(argv[1:], script_text=None, cwd="/tmp", environ={}, home="/tmp")
    except QsubError as err:
        assert rc not in (0, 1) and err.exit_code == rc, err.message
        return
    attrs = _attrs()
    try:
        hard = requests_as_stored(opts.hard_resources, attrs)
        soft = requests_as_stored(opts.soft_resources, attrs, soft=True)
    except ComplexError as err:
        assert rc == 1
        assert (CAPTURES / f"{case}.err").read_text() == f"Unable to run job: {err}\nExiting.\n"
        return
    assert rc == 0, (CAPTURES / f"{case}.err").read_text()
    shown = (CAPTURES / f"qstat-j-{case[5:]}.out").read_text()
    assert _listed(shown, "hard") == (",".join(f"{k}={v}" for k, v in hard.items()) or None)
    assert _listed(shown, "soft") == (",".join(f"{k}={v}" for k, v in soft.items()) or None)
