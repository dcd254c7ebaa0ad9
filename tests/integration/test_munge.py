"""common.munge against private munged daemons (tests/munged.py), each with its own key.

What these prove: a credential decodes to the uid and gid of the process that encoded it
(another user's included, when run as root) with its payload intact; munged's refusals
(replayed, expired, tampered with, made with another key, no daemon) all come out as
MungeError with libmunge's code; nothing leaks per call; and the module imports and
reports, without raising, when libmunge is missing.
"""
from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from common import munge
from tests.munged import MUNGED, munged_skip_reason, private_munged, write_key

IS_ROOT = os.geteuid() == 0
REPO = Path(__file__).resolve().parents[2]
BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
# Refusals a changed credential may earn, by where the change falls: the MAC check
# (CRED_INVALID) for the body, a format check for the few header bytes before it.
TAMPERED = {munge.EMUNGE_CRED_INVALID, munge.EMUNGE_BAD_CRED, munge.EMUNGE_BAD_VERSION,
            munge.EMUNGE_BAD_CIPHER, munge.EMUNGE_BAD_MAC, munge.EMUNGE_BAD_ZIP,
            munge.EMUNGE_BAD_REALM, munge.EMUNGE_BAD_LENGTH}


def _need_libmunge() -> None:
    reason = munge.unavailable_reason()
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture(scope="module")
def munged_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("munged")


@pytest.fixture(scope="module")
def cell_key(munged_dir: Path) -> Path:
    """The key of the module's munged (a sibling daemon may share it)."""
    key = munged_dir / "cell.key"
    write_key(key)
    return key


@pytest.fixture(scope="module")
def sock(munged_dir: Path, cell_key: Path) -> Iterator[str]:
    """The socket of a private munged shared by the module's tests."""
    reason = munged_skip_reason()
    if reason is not None:
        pytest.skip(reason)
    with private_munged(munged_dir, key=cell_key) as path:
        yield path


# --- without a daemon -------------------------------------------------------------

def test_libmunge_loads_where_munge_is_installed() -> None:
    """unavailable_reason() is None wherever the munge package is installed."""
    if MUNGED is None:
        pytest.skip("munged is not installed: nothing says libmunge should load")
    assert munge.unavailable_reason() is None


def test_missing_library_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without libmunge: the module still imports, unavailable_reason() says why, and
    encode/decode raise MungeUnavailable (code -1), a MungeError."""
    monkeypatch.setattr(munge, "LIBRARY", "libmunge-absent-for-test.so.2")
    monkeypatch.setattr(munge, "_loaded", None)
    monkeypatch.setattr(munge, "_load_error", None)
    reason = munge.unavailable_reason()
    assert reason is not None and "libmunge-absent-for-test.so.2" in reason
    for call in (lambda: munge.encode(b"x"), lambda: munge.decode(b"MUNGE:x:")):
        with pytest.raises(munge.MungeUnavailable) as caught:
            call()
        assert isinstance(caught.value, munge.MungeError)
        assert caught.value.code == -1 and caught.value.message == reason


def test_import_does_not_load_the_library() -> None:
    """Importing the module loads neither libmunge nor ctypes (clients import it)."""
    code = ("import sys; import common.munge as m; "
            "assert m._loaded is None and m._load_error is None; "
            "assert 'ctypes' not in sys.modules, 'ctypes imported'; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, check=False)
    assert out.stdout.strip() == "ok", out.stderr


def test_skip_reason_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import tests.munged as helper
    monkeypatch.setattr(helper, "MUNGED", None)
    assert helper.munged_skip_reason() == \
        "munged is not installed (Debian: apt-get install munge)"
    monkeypatch.setattr(helper, "MUNGED", "/usr/sbin/munged")
    monkeypatch.setattr(munge, "LIBRARY", "libmunge-absent-for-test.so.2")
    monkeypatch.setattr(munge, "_loaded", None)
    monkeypatch.setattr(munge, "_load_error", None)
    reason = helper.munged_skip_reason()
    assert reason is not None and reason.startswith(
        "libmunge-absent-for-test.so.2 is not available")


def test_socket_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(munge.SOCKET_ENV, raising=False)
    assert munge.socket_from_env() is None
    monkeypatch.setenv("PYGE_MUNGE_SOCKET", "")
    assert munge.socket_from_env() is None
    monkeypatch.setenv("PYGE_MUNGE_SOCKET", "/run/other/munge.socket.2")
    assert munge.socket_from_env() == "/run/other/munge.socket.2"


def test_no_daemon_is_a_socket_error(tmp_path: Path) -> None:
    """Nothing at the socket path, or a file that is no socket: EMUNGE_SOCKET, with
    libmunge's detail naming the path."""
    _need_libmunge()
    missing = str(tmp_path / "no-such-socket")
    not_a_socket = tmp_path / "plain-file"
    not_a_socket.write_bytes(b"")
    for path in (missing, str(not_a_socket)):
        with pytest.raises(munge.MungeError) as caught:
            munge.decode(b"MUNGE:AwQFAAB:", socket=path)
        assert caught.value.code == munge.EMUNGE_SOCKET
        assert path in caught.value.message
        with pytest.raises(munge.MungeError) as caught:
            munge.encode(b"payload", socket=path)
        assert caught.value.code == munge.EMUNGE_SOCKET


# --- one private munged -----------------------------------------------------------

def test_round_trip_gives_our_ids_and_payload(sock: str) -> None:
    before = int(time.time())
    cred = munge.encode(b"hello \x00 world", socket=sock, ttl=60)
    assert cred.startswith(b"MUNGE:") and cred.endswith(b":")
    got = munge.decode(cred, socket=sock)
    assert (got.uid, got.gid) == (os.geteuid(), os.getegid())
    assert got.payload == b"hello \x00 world"
    assert got.ttl == 60
    assert before <= got.encode_time <= got.decode_time <= int(time.time())
    # The origin is the daemon's host address ("" only if it had none).
    assert got.addr == "" or len(got.addr.split(".")) == 4


def test_default_ttl_and_empty_payload(sock: str) -> None:
    got = munge.decode(munge.encode(b"", socket=sock), socket=sock)
    assert got.payload == b""
    assert got.ttl == 300   # munged's default (MUNGE_DEFAULT_TTL)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.binary(max_size=4096))
def test_random_payloads_round_trip(sock: str, payload: bytes) -> None:
    assert munge.decode(munge.encode(payload, socket=sock), socket=sock).payload == payload


def test_socket_from_env_reaches_the_daemon(sock: str, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    monkeypatch.setenv("PYGE_MUNGE_SOCKET", sock)
    assert munge.decode(munge.encode(b"env", socket=munge.socket_from_env()),
                        socket=munge.socket_from_env()).payload == b"env"


def test_second_decode_is_replayed(sock: str) -> None:
    cred = munge.encode(b"once", socket=sock)
    assert munge.decode(cred, socket=sock).payload == b"once"
    with pytest.raises(munge.MungeError) as caught:
        munge.decode(cred, socket=sock)
    assert caught.value.code == munge.EMUNGE_CRED_REPLAYED
    assert "replayed" in caught.value.message.lower()


def test_expired_credential(sock: str) -> None:
    """ttl=1: munged refuses it once its clock is past encode_time + 1."""
    cred = munge.encode(b"short-lived", socket=sock, ttl=1)
    encoded_by = int(time.time())   # encode_time <= this, same clock as munged
    # Wait until the clock is past encode_time + ttl: at most two seconds.
    while time.time() < encoded_by + 2:
        time.sleep(max(0.0, encoded_by + 2 - time.time()) + 0.01)
    with pytest.raises(munge.MungeError) as caught:
        munge.decode(cred, socket=sock)
    assert caught.value.code == munge.EMUNGE_CRED_EXPIRED


def test_tampered_credential_is_refused(sock: str) -> None:
    cred = munge.encode(b"untouched", socket=sock)
    middle = len(cred) // 2
    swapped = b"A" if cred[middle:middle + 1] != b"A" else b"B"
    tampered = cred[:middle] + swapped + cred[middle + 1:]
    with pytest.raises(munge.MungeError) as caught:
        munge.decode(tampered, socket=sock)
    assert caught.value.code == munge.EMUNGE_CRED_INVALID
    # The original is still good: the refusal was for the change, not the daemon.
    assert munge.decode(cred, socket=sock).payload == b"untouched"


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_changed_character_is_refused(sock: str, data: st.DataObject) -> None:
    cred = munge.encode(b"payload", socket=sock).decode()
    body_start, body_end = len("MUNGE:"), len(cred) - 1   # between the colons
    # Not the last 4 characters of the body: there a change may fall into base64's
    # padding bits and leave the decoded bytes as they were.
    at = data.draw(st.integers(body_start, body_end - 5), label="at")
    new = data.draw(st.sampled_from(BASE64).filter(lambda c: c != cred[at]), label="new")
    tampered = (cred[:at] + new + cred[at + 1:]).encode()
    with pytest.raises(munge.MungeError) as caught:
        munge.decode(tampered, socket=sock)
    assert caught.value.code in TAMPERED, caught.value.message


@pytest.mark.parametrize("garbage", [b"", b"not a credential", b"MUNGE:\x00:",
                                     b"MUNGE::"])
def test_garbage_is_refused(sock: str, garbage: bytes) -> None:
    with pytest.raises(munge.MungeError) as caught:
        munge.decode(garbage, socket=sock)
    assert caught.value.code == munge.EMUNGE_BAD_CRED


def test_other_key_is_refused_same_key_is_accepted(sock: str, munged_dir: Path,
                                                   cell_key: Path) -> None:
    """A credential from a munged with another key fails the MAC (CRED_INVALID); one
    from a munged with a copy of the key decodes (two hosts of one cell)."""
    with private_munged(munged_dir) as stranger:
        foreign = munge.encode(b"from elsewhere", socket=stranger)
        with pytest.raises(munge.MungeError) as caught:
            munge.decode(foreign, socket=sock)
        assert caught.value.code == munge.EMUNGE_CRED_INVALID
        assert munge.decode(foreign, socket=stranger).payload == b"from elsewhere"
    with private_munged(munged_dir, key=cell_key) as sibling:
        got = munge.decode(munge.encode(b"from a sibling", socket=sibling), socket=sock)
        assert got.payload == b"from a sibling" and got.uid == os.geteuid()


def test_decode_from_many_threads(sock: str) -> None:
    """Contexts are per call: threads encoding and decoding at once get their own
    payloads back."""
    results: dict[int, list[bytes]] = {}
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            results[n] = [munge.decode(munge.encode(f"{n}:{i}".encode(), socket=sock),
                                       socket=sock).payload for i in range(25)]
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert results == {n: [f"{n}:{i}".encode() for i in range(25)] for n in range(8)}


def test_buffers_are_freed(sock: str) -> None:
    """1000 pairs with 64 KiB payloads: leaking the credential or the payload buffer
    would grow the process by over 150 MiB; freed, it stays within a few."""
    payload = os.urandom(64 * 1024)
    proc = psutil.Process()
    for _ in range(50):  # let malloc's arenas settle
        munge.decode(munge.encode(payload, socket=sock), socket=sock)
    before = proc.memory_info().rss
    for _ in range(1000):
        assert munge.decode(munge.encode(payload, socket=sock), socket=sock).payload \
            == payload
    grown = proc.memory_info().rss - before
    assert grown < 32 * 1024 * 1024, f"grew by {grown / 2**20:.1f} MiB"


def test_error_pickles_with_its_fields(sock: str) -> None:
    import pickle
    cred = munge.encode(b"", socket=sock)
    munge.decode(cred, socket=sock)
    with pytest.raises(munge.MungeError) as caught:
        munge.decode(cred, socket=sock)
    again = pickle.loads(pickle.dumps(caught.value))
    assert (type(again), again.code, again.message) == (
        munge.MungeError, caught.value.code, caught.value.message)


# --- as root: another user's credential --------------------------------------------

def _runnable_by_anyone(path: str) -> bool:
    """Whether others may execute ``path``: the file it leads to, and every directory on
    the way both to that file and to ``path`` itself (a venv's interpreter is a link to
    the system's, from a directory that may be private)."""
    real = Path(path).resolve()
    if not os.stat(real).st_mode & stat.S_IXOTH:
        return False
    ways = set(real.parents) | set(Path(path).absolute().parents)
    return all(os.stat(p).st_mode & stat.S_IXOTH for p in ways)


@pytest.mark.skipif(not IS_ROOT, reason="needs root to run a process as nobody")
def test_credential_of_another_user_decodes_to_that_user(sock: str) -> None:
    """The uid and gid come from munged (the peer's credentials on its socket), not
    from the caller: a process running as nobody, with a primary group other than its
    uid's number, gets exactly those ids."""
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("there is no user nobody")
    gid = 100 if nobody.pw_uid != 100 else 101   # "users" on Debian; any gid will do
    python = next((p for p in (sys.executable, "/usr/bin/python3")
                   if os.path.exists(p) and _runnable_by_anyone(p)), None)
    if python is None:
        pytest.skip(f"no Python interpreter that nobody may run ({sys.executable} is "
                    "under a directory others can't search)")
    # nobody can't read the checkout under /root: give it a copy of the module alone.
    copy = Path(tempfile.mkdtemp(prefix="munge-py.", dir="/tmp"))
    try:
        os.chmod(copy, 0o755)
        (copy / "common").mkdir(mode=0o755)
        (copy / "common" / "__init__.py").write_text("")
        shutil.copyfile(REPO / "common" / "munge.py", copy / "common" / "munge.py")
        for f in (copy / "common").iterdir():
            os.chmod(f, 0o644)
        os.chmod(copy / "common", 0o755)
        code = ("import sys; from common import munge; "
                "sys.stdout.buffer.write(munge.encode(b'from nobody', socket=sys.argv[1]))")
        out = subprocess.run(
            [python, "-c", code, sock], cwd=copy, capture_output=True, check=False,
            user=nobody.pw_uid, group=gid, extra_groups=[], timeout=60,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(copy),
                 "PYTHONDONTWRITEBYTECODE": "1"})
        assert out.returncode == 0, out.stderr.decode(errors="replace")
        got = munge.decode(out.stdout, socket=sock)
        assert (got.uid, got.gid) == (nobody.pw_uid, gid)
        assert got.payload == b"from nobody"
    finally:
        shutil.rmtree(copy, ignore_errors=True)
