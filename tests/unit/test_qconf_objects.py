"""``qconf -shgrp_tree -shgrp_resolved -sobjl -bonsai`` and the daemon control options,
replayed against Grid Engine 8.1.9's captures (tests/data/reference/qconf-control/,
capture.sh there) with the real qconf client and request handlers (tests/unit/test_ckpt)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_ckpt import new_store, qconf

REF = Path(__file__).parents[1] / "data" / "reference" / "qconf-control"
CKPT_REF = REF.parent / "ckpt"


@pytest.fixture
def cell(tmp_path: Path, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """8.1.9's bench cell as capture.sh saw it: all.q as 8.1.9 made it, @sub and @top."""
    store = new_store()
    for pe in ("make", "smp", "mpi"):
        if pe not in store.conf["pe"]:
            qconf(capsys, store, ["-Ap", str(_pe_file(tmp_path, pe))])
    queue = (CKPT_REF / "Aq-ckpt.input").read_text().replace("qname                 ck.q",
                                                               "qname                 all.q")
    queue = queue.replace("hostlist              NONE", "hostlist              @allhosts")
    queue = queue.replace("ckpt_list             c1", "ckpt_list             NONE")
    (tmp_path / "all.q").write_text(queue)
    (tmp_path / "sub").write_text("group_name @sub\nhostlist vm\n")
    (tmp_path / "top").write_text("group_name @top\nhostlist @sub vm\n")
    (tmp_path / "all").write_text("group_name @allhosts\nhostlist vm\n")
    for argv in (["-Ahgrp", str(tmp_path / "all")], ["-Mhgrp", str(tmp_path / "all")],
                 ["-Mq", str(tmp_path / "all.q")], ["-Aq", str(tmp_path / "all.q")],
                 ["-Ahgrp", str(tmp_path / "sub")], ["-Ahgrp", str(tmp_path / "top")]):
        qconf(capsys, store, argv)
    assert "all.q" in store.conf["queue"] and "@top" in store.conf["hgrp"]
    return store


def _pe_file(tmp: Path, name: str) -> Path:
    path = tmp / f"pe-{name}"
    path.write_text(f"pe_name {name}\nslots 999\nuser_lists NONE\nxuser_lists NONE\n"
                    "start_proc_args NONE\nstop_proc_args NONE\nallocation_rule $pe_slots\n"
                    "control_slaves FALSE\njob_is_first_task TRUE\nurgency_slots min\n"
                    "accounting_summary FALSE\n")
    return path


CASES = ["shgrp_tree", "shgrp_tree-leaf", "shgrp_tree-missing", "shgrp_tree-noarg",
         "shgrp_resolved", "shgrp_resolved-missing", "sobjl-queue-slots", "sobjl-queue-pe",
         "sobjl-queue-none", "sobjl-queue-star", "sobjl-exechost-name", "sobjl-bad-object", "sobjl-bad-attr",
         "sobjl-noarg", "bonsai"]


@pytest.mark.parametrize("name", CASES)
def test_as_8_1_9(name: str, cell, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    argv = (REF / f"{name}.cmd").read_text().split()[2:]
    expected = ((REF / f"{name}.out").read_text(), (REF / f"{name}.err").read_text(),
                int((REF / f"{name}.rc").read_text()))
    assert qconf(capsys, cell, argv) == expected


def test_resolved_lists_each_host_once_in_tree_order(cell, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "two").write_text("group_name @two\nhostlist vm localhost\n")
    (tmp_path / "three").write_text("group_name @three\nhostlist @two localhost\n")
    qconf(capsys, cell, ["-Ahgrp", str(tmp_path / "two")])
    qconf(capsys, cell, ["-Ahgrp", str(tmp_path / "three")])
    # what 8.1.9 printed for the same groups
    assert qconf(capsys, cell, ["-shgrp_resolved", "@three"]) == ("vm localhost\n", "", 0)
    assert qconf(capsys, cell, ["-shgrp_tree", "@three"]) == (
        "@three\n   @two\n      vm\n      localhost\n   localhost\n", "", 0)


# ---- -cq ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["cq-missing", "cq-all", "cq-instance"])
def test_cq_messages_as_8_1_9(name: str, cell, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    from common.model import ExecHost
    cell.hosts["vm"] = ExecHost("vm", alive=True)  # its execd has registered
    argv = (REF / f"{name}.cmd").read_text().split()[2:]
    expected = ((REF / f"{name}.out").read_text(), (REF / f"{name}.err").read_text(),
                int((REF / f"{name}.rc").read_text()))
    assert qconf(capsys, cell, argv) == expected


def test_cq_purges_the_jobs_of_the_instance_only(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from clients.qconf.base import Session
    from clients.qconf.main import run
    from tests.unit.test_bounded_requests import HarnessClient
    from tests.unit.test_qmaster_core import ALICE, ROOT, Harness
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    for host in ("h1", "h2"):
        qm.register(host)
    here, there, waiting = qm.submit(), qm.submit(), qm.submit(hold=True)
    qm.dispatch(here, host="h1")
    qm.dispatch(there, host="h2")
    client = HarnessClient(qm, ROOT)
    assert run(["-cq", "all.q@h1"], Session(lambda: client)) == 0
    assert capsys.readouterr() == ("", f'root@{ROOT.host} purged queue "all.q@h1"\n')
    store = qm.server.store
    assert store.job_finished(here)
    assert not store.job_finished(there) and not store.job_finished(waiting)
    with pytest.raises(Exception) as refused:
        run(["-cq", "all.q"], Session(lambda: HarnessClient(qm, ALICE)))
    assert str(refused.value) == 'denied: "alice" must be manager for this operation'
    assert not store.job_finished(there)


# ---- -sds ----------------------------------------------------------------------------------
def test_sds_without_detached_settings(cell, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    argv = (REF / "sds.cmd").read_text().split()[2:]
    assert qconf(capsys, cell, argv) == ((REF / "sds.out").read_text(), "", 0)


@pytest.mark.parametrize("name", ["sds-detached", "sds-detached-refs"])
def test_sds_as_8_1_9(name: str, cell, tmp_path: Path,  # type: ignore[no-untyped-def]
                      capsys: pytest.CaptureFixture[str]) -> None:
    """A queue whose values name a host outside its hostlist: every such value, in
    8.1.9's order, exit status 1."""
    (tmp_path / "p1").write_text("name p1\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n")
    (tmp_path / "cal1").write_text("calendar_name cal1\nyear NONE\nweek NONE\n")
    (tmp_path / "c1").write_text("ckpt_name c1\ninterface userdefined\nckpt_command none\n"
                                 "migr_command none\nrestart_command none\n"
                                 "clean_command none\nckpt_dir /tmp\nsignal none\nwhen sx\n")
    for argv in (["-Aprj", "p1"], ["-Acal", "cal1"], ["-Ackpt", "c1"]):
        assert qconf(capsys, cell, [argv[0], str(tmp_path / argv[1])])[2] == 0
    assert qconf(capsys, cell, ["-Aq", str(REF / f"{name}.input")])[2] == 0, capsys
    expected = ((REF / f"{name}.out").read_text(), (REF / f"{name}.err").read_text(),
                int((REF / f"{name}.rc").read_text()))
    assert qconf(capsys, cell, ["-sds"]) == expected


# ---- daemon control: the command line (the handler: tests/unit/test_daemon_control.py) ------
@pytest.mark.parametrize("name", ["ke-unknown", "kej-unknown", "kec-missing", "kec-bad",
                                  "kt-bad", "at-bad", "kt-noarg", "sss-after-ks", "ks-again",
                                  "kt-after-ks", "kec-scheduler"])
def test_daemon_control_as_captured(name: str, cell,  # type: ignore[no-untyped-def]
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """No scheduler has registered with the in-process qmaster (as after 8.1.9's -ks)."""
    argv = (REF / f"{name}.cmd").read_text().split()[2:]
    expected = ((REF / f"{name}.out").read_text(), (REF / f"{name}.err").read_text(),
                int((REF / f"{name}.rc").read_text()))
    assert qconf(capsys, cell, argv) == expected


# ---- the options qconf -help lists that 8.1.9's qconf refuses ---------------------------
# (that every other option it lists is known: tests/unit/test_surface_commands.py walks it)
# qsub's options, which 8.1.9's qconf -help lists and its qconf refuses (captured)
REFUSED_BY_8_1_9 = {"-R", "-ar", "-ckpt", "-clear", "-display", "-dl", "-tc", "-verbose",
                    "-w"}


@pytest.mark.parametrize("option", sorted(REFUSED_BY_8_1_9))
def test_the_help_lists_some_options_8_1_9_refuses(option: str, cell,  # type: ignore[no-untyped-def]
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    name = f"help-listed{option}"
    argv = (REF / f"{name}.cmd").read_text().split()[2:]
    expected = ((REF / f"{name}.out").read_text(), (REF / f"{name}.err").read_text(),
                int((REF / f"{name}.rc").read_text()))
    assert qconf(capsys, cell, argv) == expected
