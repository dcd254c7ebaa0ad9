"""qmaster.jsv: whom the server JSV runs as, which scripts a qmaster runs, JSV_TIMEOUT, and
the long-running child (the captured 8.1.9 test scripts, tests/data/reference/jsv/)."""
from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from common import jsv
from qmaster.jsv import RunAs, ServerJsv, run_as, script_refusal, timeout_of
from tests.identity import needs_root, other_users

REF = Path(__file__).resolve().parents[1] / "data" / "reference" / "jsv"
ME = pwd.getpwuid(os.geteuid())


def test_timeout_of_qmaster_params() -> None:
    assert timeout_of("none") == jsv.DEFAULT_TIMEOUT == 10.0
    assert timeout_of("MAX_SCRIPT_SIZE=4M,JSV_TIMEOUT=3") == 3.0
    assert timeout_of("jsv_timeout=0") == 10.0


def test_run_as() -> None:
    assert run_as(jsv.JsvUrl("/a.sh"), euid=os.geteuid()).name == ME.pw_name
    with pytest.raises(jsv.JsvError, match='user "no-such-user-x" specified in JSV URL'):
        run_as(jsv.JsvUrl("/a.sh", "no-such-user-x"), euid=os.geteuid())
    with pytest.raises(jsv.JsvError, match="not the necessary permission"):
        run_as(jsv.JsvUrl("/a.sh", "root"), euid=12345)


def _st(mode: int, uid: int) -> os.stat_result:
    return os.stat_result((mode, 0, 0, 1, uid, 0, 0, 0, 0, 0))


def test_script_refusal() -> None:
    runner = RunAs(1000, 1000, "admin", "/home/admin")
    reg = stat.S_IFREG
    assert script_refusal(_st(reg | 0o755, 0), runner) is None
    assert script_refusal(_st(reg | 0o700, 1000), runner) is None
    assert "not executable" in script_refusal(_st(reg | 0o644, 0), runner)
    assert "not a file" in script_refusal(_st(stat.S_IFLNK | 0o777, 0), runner)
    assert "owned by uid 1001" in script_refusal(_st(reg | 0o755, 1001), runner)
    assert "writable by group or others" in script_refusal(_st(reg | 0o775, 0), runner)
    assert "writable by group or others" in script_refusal(_st(reg | 0o757, 1000), runner)


def _scripts(tmp_path: Path) -> Path:
    for path in REF.glob("*.sh"):
        shutil.copy(path, tmp_path / path.name)
        os.chmod(tmp_path / path.name, 0o755)
    return tmp_path


def test_server_child(tmp_path: Path) -> None:
    """One long-running child verifies job after job; a refusal, a correction, one that
    dies (started once more, then refused in 8.1.9's words) and one that hangs (bounded
    by the timeout)."""
    scripts = _scripts(tmp_path)
    logged: list[tuple[str, dict[str, object]]] = []
    params = [("N", "x")]

    async def main() -> None:
        server = ServerJsv("/nonexistent-root", "default",
                           lambda event, **kw: logged.append((event, kw)))
        try:
            got = await server.verify(str(scripts / "reject.sh"), 5, params, {})
            assert (got.accepted, got.message) == (False, "no binaries here")
            first = server._child
            got = await server.verify(str(scripts / "reject.sh"), 5, params, {})
            assert server._child is first  # (the same process: long-running)
            got = await server.verify(str(scripts / "correct.sh"), 5, params, {"A": "1"})
            assert got.accepted and got.params == {"N": "renamed", "l_hard": "h_rt=50"}
            assert server._child is not first  # (another jsv_url: another child)
            died = await server.verify(str(scripts / "die.sh"), 5, params, {})
            assert died.message == jsv.no_response(str(scripts / "die.sh"))
            hung = await server.verify(str(scripts / "hang.sh"), 1, params, {})
            assert hung.message == jsv.no_response(str(scripts / "hang.sh"))
            assert server._child is None
            missing = await server.verify(str(scripts / "nosuch.sh"), 1, params, {})
            assert missing.message == f'JSV file "{scripts}/nosuch.sh" can\'t be started'
        finally:
            await server.close()

    asyncio.run(main())
    assert sum(event == "JSV has been started" for event, _ in logged) >= 5


def test_idle_jsv_is_stopped_when_jsv_url_is_none(tmp_path: Path) -> None:
    scripts = _scripts(tmp_path)

    async def main() -> None:
        server = ServerJsv("/", "default", lambda *a, **k: None)
        assert server.idle("none") is None
        await server.verify(str(scripts / "reject.sh"), 5, [("N", "x")], {})
        assert server.idle(str(scripts / "reject.sh")) is None
        proc = server._child.proc
        await server.idle("none")
        assert server._child is None and proc.returncode is not None

    asyncio.run(main())


@needs_root
def test_runs_as_the_user_jsv_url_names() -> None:
    """A root qmaster runs ``script:user@/path`` as that user, with the fixed
    environment (never the qmaster's or a submitter's)."""
    [other] = other_users(1)
    directory = Path(tempfile.mkdtemp(prefix="jsv-as-"))
    try:
        os.chmod(directory, 0o755)
        script = directory / "whoami.sh"
        script.write_text('#!/bin/sh\nread -r start\necho STARTED\nwhile read -r line; do\n'
                          '  [ "$line" = BEGIN ] && echo "RESULT STATE REJECT $(id -un) $HOME '
                          '$PATH $SGE_CELL ${SECRET:-unset}"\ndone\n')
        os.chmod(script, 0o755)
        os.environ["SECRET"] = "qmaster's"

        async def main() -> jsv.Verdict:
            server = ServerJsv("/", "bench", lambda *a, **k: None)
            try:
                return await server.verify(f"script:{other}@{script}", 5, [("N", "x")], {})
            finally:
                await server.close()

        verdict = asyncio.run(main())
        home = pwd.getpwnam(other).pw_dir
        assert verdict.message == f"{other} {home} /bin:/usr/bin bench unset"
    finally:
        os.environ.pop("SECRET", None)
        shutil.rmtree(directory)
