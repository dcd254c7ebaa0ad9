"""What the execd and the shepherd create on disk, and with which modes (no job runs here).

A root execd makes directories and files for jobs in places users can reach (TMPDIR under
a world-writable directory, job directories under its spool). These checks plant links
and foreign entries where a user could and verify that nothing follows them, plus the
modes of the notify socket, the execd spool and the cell (docs/security.md).
"""
from __future__ import annotations

import os
import pwd
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from common import keys

from common.cell import Cell, make_cell_dirs, write_act_qmaster
from execd import jobdir, safefs
from execd.service import ExecdService

IS_ROOT = os.geteuid() == 0
ME = os.geteuid()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@contextmanager
def umask(value: int) -> Iterator[None]:
    old = os.umask(value)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def nobody() -> pwd.struct_passwd:
    if not IS_ROOT:
        pytest.skip("giving files to another user needs root")
    return pwd.getpwnam("nobody")


# ------------------------------------------------------------------ removal

def test_rmtree_is_safe_against_symlink_attacks() -> None:
    # safefs refuses to import otherwise; this says why the removal below may use rmtree
    assert shutil.rmtree.avoids_symlink_attacks


def test_remove_tree_keeps_what_links_point_to(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "file").write_text("keep\n")
    tree = tmp_path / "tree"
    (tree / "deep").mkdir(parents=True)
    (tree / "dirlink").symlink_to(outside)
    (tree / "filelink").symlink_to(outside / "file")
    (tree / "deep" / "sublink").symlink_to(outside / "sub")
    (tree / "ro").mkdir()
    (tree / "ro" / "f").write_text("x")
    (tree / "ro").chmod(0o500)
    safefs.remove_tree(tree, ME)
    assert not os.path.lexists(tree)
    assert (outside / "file").read_text() == "keep\n" and (outside / "sub").is_dir()


def test_remove_tree_refuses_a_link_at_the_top(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "file").write_text("keep\n")
    (tmp_path / "link").symlink_to(outside)
    with pytest.raises(safefs.UnsafePath, match="symbolic link"):
        safefs.remove_tree(tmp_path / "link", ME)
    assert (outside / "file").read_text() == "keep\n"


def test_remove_tree_refuses_a_directory_of_another_owner(tmp_path: Path,
                                                          nobody: pwd.struct_passwd) -> None:
    other = tmp_path / "other"
    other.mkdir()
    os.chown(other, nobody.pw_uid, nobody.pw_gid)
    with pytest.raises(safefs.UnsafePath, match=f"belongs to uid {nobody.pw_uid}"):
        safefs.remove_tree(other, ME)
    assert other.is_dir()


# ------------------------------------------------------------------ directories

def test_make_dir_creates_with_the_exact_mode(tmp_path: Path) -> None:
    with umask(0o077):
        assert safefs.make_dir(tmp_path / "d", 0o755)
    assert mode(tmp_path / "d") == 0o755


def test_make_dir_refuses_a_planted_link_and_leaves_its_target(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir(mode=0o750)
    (tmp_path / "d").symlink_to(target)
    with pytest.raises(safefs.UnsafePath, match="symbolic link"):
        safefs.make_dir(tmp_path / "d", 0o700)
    assert mode(target) == 0o750


def test_make_dir_refuses_a_file(tmp_path: Path) -> None:
    (tmp_path / "d").write_text("")
    with pytest.raises(safefs.UnsafePath, match="not a directory"):
        safefs.make_dir(tmp_path / "d", 0o700)


def test_make_dir_reuses_an_own_directory_with_the_new_mode(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir(mode=0o777)
    assert not safefs.make_dir(tmp_path / "d", 0o700)
    assert mode(tmp_path / "d") == 0o700


def test_make_dir_for_another_owner(tmp_path: Path, nobody: pwd.struct_passwd) -> None:
    assert safefs.make_dir(tmp_path / "d", 0o700, nobody.pw_uid, nobody.pw_gid)
    st = (tmp_path / "d").lstat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == \
        (nobody.pw_uid, nobody.pw_gid, 0o700)
    # a directory root left behind is not adopted for nobody
    (tmp_path / "e").mkdir()
    with pytest.raises(safefs.UnsafePath, match="belongs to uid 0"):
        safefs.make_dir(tmp_path / "e", 0o700, nobody.pw_uid, nobody.pw_gid)
    assert (tmp_path / "e").stat().st_uid == 0


# ------------------------------------------------------------------ job directory files

def spec_for(uid: int, gid: int, switch: bool) -> dict[str, Any]:
    return {"uid": uid, "gid": gid, "switch_user": switch, "job_id": 1}


def test_job_directory_modes(tmp_path: Path) -> None:
    job_dir = tmp_path / "1.1"
    with umask(0o022):
        jobdir.write_spec(job_dir, spec_for(ME, os.getegid(), False), b"echo hi\n")
    assert mode(job_dir) == 0o755  # the owner reaches the script and the PE host file
    assert mode(job_dir / jobdir.SPEC_FILE) == 0o600  # environment and paths: root's only
    assert mode(job_dir / jobdir.SCRIPT_FILE) == 0o700  # the owner's only
    jobdir.write_result(job_dir, {"exit_status": 0})
    assert mode(job_dir / jobdir.RESULT_FILE) == 0o600


def test_the_script_belongs_to_the_job_owner(tmp_path: Path, nobody: pwd.struct_passwd) -> None:
    job_dir = tmp_path / "1.1"
    jobdir.write_spec(job_dir, spec_for(nobody.pw_uid, nobody.pw_gid, True), b"echo hi\n")
    st = (job_dir / jobdir.SCRIPT_FILE).lstat()
    assert (st.st_uid, st.st_gid) == (nobody.pw_uid, nobody.pw_gid)
    assert (job_dir.lstat().st_uid, (job_dir / jobdir.SPEC_FILE).lstat().st_uid) == (0, 0)


def test_write_spec_refuses_a_linked_job_directory(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "1.1").symlink_to(elsewhere)
    with pytest.raises(safefs.UnsafePath):
        jobdir.write_spec(tmp_path / "1.1", spec_for(ME, os.getegid(), False), b"x")
    assert list(elsewhere.iterdir()) == []


def test_atomic_writes_do_not_follow_a_planted_temporary_name(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    planted = tmp_path / f".{jobdir.RESULT_FILE}.{os.getpid()}.tmp"
    planted.symlink_to(victim)
    jobdir.write_result(tmp_path, {"exit_status": 3})
    assert victim.read_text() == "precious\n"
    assert jobdir.read_result(tmp_path) == {"exit_status": 3}
    assert not os.path.lexists(planted)


def test_create_file_is_exclusive_and_does_not_follow(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (tmp_path / "link").symlink_to(victim)
    with pytest.raises(FileExistsError):
        safefs.create_file(tmp_path / "link", 0o600)
    assert victim.read_text() == "precious\n"
    with umask(0o077):
        os.close(safefs.create_file(tmp_path / "new", 0o644))
    assert mode(tmp_path / "new") == 0o644


# ------------------------------------------------------------------ the execd spool

class NoLauncher:
    """Stands in for the zygote: these checks start no shepherd."""
    zygote_pid = 1

    def stop(self) -> None:
        pass


def service(spool: Path) -> ExecdService:
    launcher: Any = NoLauncher()
    # keys it never uses: these tests stop before the execd connects
    unused = keys.ClientKeys(keys.new_pair(), keys.new_pair().public)
    return ExecdService(spool, "node1", "127.0.0.1", 1, unused, launcher=launcher,
                        cgroups=False)


async def test_notify_socket_is_the_execd_users_only(tmp_path: Path) -> None:
    execd = service(tmp_path / "spool")
    with umask(0o000):
        execd.prepare()
        sock = execd._open_notify_socket()
    try:
        path = execd.notify_path
        assert stat.S_ISSOCK(path.lstat().st_mode)
        assert mode(path) == 0o600 and path.lstat().st_uid == ME
        # the shepherd (root until it starts the job) sends; the job owner cannot
        assert mode(path.parent) == 0o700 and path.parent.lstat().st_uid == ME
        assert path.parent != execd.spool_dir
    finally:
        sock.close()


def test_execd_spool_modes(tmp_path: Path) -> None:
    execd = service(tmp_path / "a" / "spool")
    with umask(0o077):
        execd.prepare()
    # job owners traverse the spool to their job directory (script, PE host file)
    assert mode(tmp_path / "a") == mode(execd.spool_dir) == mode(execd.jobs_dir) == 0o755


def test_execd_refuses_a_linked_jobs_directory(tmp_path: Path) -> None:
    spool = tmp_path / "spool"
    spool.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (spool / "jobs").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(safefs.UnsafePath, match="symbolic link"):
        service(spool).prepare()


# ------------------------------------------------------------------ the cell

def test_cell_modes(tmp_path: Path) -> None:
    cell = Cell(tmp_path / "root")
    with umask(0o077):
        make_cell_dirs(cell)
        write_act_qmaster(cell, "master", 6444, 6445)
    # every job script is in the qmaster's SQLite spool: nobody else's business
    assert mode(cell.qmaster_spool_dir) == 0o700
    # clients of every user read act_qmaster (and accounting, sge_request) in common/
    assert mode(cell.root) == mode(cell.path) == mode(cell.common_dir) == 0o755
    assert mode(cell.act_qmaster_path) == 0o644
    # job owners traverse to their job directories under spool/execd/<host>
    assert mode(cell.path / "spool") == mode(cell.path / "spool" / "execd") == 0o755


def test_cell_spool_of_an_older_cell_is_closed(tmp_path: Path) -> None:
    cell = Cell(tmp_path)
    cell.qmaster_spool_dir.mkdir(parents=True, mode=0o755)
    cell.qmaster_spool_dir.chmod(0o755)
    make_cell_dirs(cell)
    assert mode(cell.qmaster_spool_dir) == 0o700


def test_a_spool_too_deep_for_a_unix_socket_is_refused_plainly(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 120)
    with pytest.raises(OSError, match="use a shorter cell directory"):
        service(deep).prepare()
    assert not deep.exists()  # refused before anything was made
