"""The CURVE keys that prove daemons to each other, and where a cell keeps them.

Every daemon has a key pair (ZeroMQ CURVE, Curve25519): the qmaster proves itself to
execds, the scheduler and remote clients with its secret key, and execds and the
scheduler prove themselves to the qmaster with theirs. The qmaster accepts a daemon only
if its public key is one it trusts; the trusted key's file name says which daemon it is.

Layout (``pyge keys`` and ``pyge up`` make it):

- ``<cell>/common/keys/qmaster.key``        the qmaster's public key, for every client and
                                            daemon (0644 in a 0755 directory)
- ``<cell>/keys/``                          0700, the administrator's: secret keys
  - ``qmaster.key_secret``, ``scheduler.key_secret``, ``execd-<host>.key_secret``
  - ``trusted/scheduler.key``, ``trusted/execd-<host>.key``: the public keys the
    qmaster accepts, one file per daemon

An execd on another host needs its own ``execd-<host>.key_secret`` and the qmaster's
public key, copied there (``deploy/MULTIHOST.md``). The files are ZeroMQ's certificate
format (``zmq.auth.load_certificate`` reads them). Secret files are created exclusively
with mode 0600, never through a link.
"""
from __future__ import annotations

import datetime
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common.cell import Cell, make_cell_dirs

if TYPE_CHECKING:
    import zmq  # only daemons and remote clients, which have it imported already

KEYS_DIR_MODE = 0o700
PUBLIC_DIR_MODE = 0o755
SECRET_MODE = 0o600
PUBLIC_MODE = 0o644
SCHEDULER = "scheduler"
EXECD_PREFIX = "execd-"
_Z85_KEY = re.compile(rb"^[0-9a-zA-Z.\-:+=^!/*?&<>()\[\]{}@%$#]{40}$")


class KeyFileError(Exception):
    """A key file is missing, unreadable or not a CURVE certificate."""


@dataclass(frozen=True)
class KeyPair:
    public: bytes  # Z85, 40 characters
    secret: bytes | None = None  # Z85; None for a public certificate


@dataclass(frozen=True)
class TrustedDaemon:
    """Whom a trusted public key belongs to: the scheduler, or the execd of ``host``."""

    role: str  # "scheduler" or "execd"
    host: str = ""


def keys_dir(cell: Cell) -> Path:
    return cell.path / "keys"


def trusted_dir(cell: Cell) -> Path:
    return keys_dir(cell) / "trusted"


def public_dir(cell: Cell) -> Path:
    return cell.common_dir / "keys"


def qmaster_public_path(cell: Cell) -> Path:
    return public_dir(cell) / "qmaster.key"


def secret_path(cell: Cell, name: str) -> Path:
    """``name``: "qmaster", "scheduler" or "execd-<host>"."""
    return keys_dir(cell) / f"{name}.key_secret"


def execd_name(host: str) -> str:
    return f"{EXECD_PREFIX}{host}"


# ---- certificate files ------------------------------------------------------------------

def _certificate_text(pair: KeyPair) -> str:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    kind = "Public" if pair.secret is None else "**Secret**"
    lines = [f"#   ****  Generated on {stamp} by pygridengine  ****",
             f"#   ZeroMQ CURVE {kind} Certificate"]
    if pair.secret is None:
        lines.append("#   Exchange securely, or use a secure mechanism to verify the contents")
    else:
        lines.append("#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.")
    lines += ["", "metadata", "curve", f'    public-key = "{pair.public.decode()}"']
    if pair.secret is not None:
        lines.append(f'    secret-key = "{pair.secret.decode()}"')
    return "\n".join(lines) + "\n"


def write_certificate(path: Path, pair: KeyPair) -> None:
    """Write ``pair`` to ``path`` (a new file; secret 0600, public 0644), atomically and
    exclusively: a file or link found at the temporary name is an error, not a target."""
    mode = PUBLIC_MODE if pair.secret is None else SECRET_MODE
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 mode)
    try:
        os.fchmod(fd, mode)
        os.write(fd, _certificate_text(pair).encode())
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(tmp, path)


def read_certificate(path: Path) -> KeyPair:
    """The keys of a certificate file (public, and secret if it holds one)."""
    try:
        text = path.read_bytes()
    except OSError as err:
        raise KeyFileError(f"can't read key file {path}: {err.strerror or err}") from None
    found: dict[bytes, bytes] = {}
    for line in text.splitlines():
        match = re.match(rb'^\s+(public-key|secret-key)\s*=\s*"(.*)"\s*$', line)
        if match:
            found[match.group(1)] = match.group(2)
    public, secret = found.get(b"public-key"), found.get(b"secret-key")
    if public is None or not _Z85_KEY.match(public) or \
            (secret is not None and not _Z85_KEY.match(secret)):
        raise KeyFileError(f"{path} is not a CURVE certificate")
    return KeyPair(public, secret)


def read_secret(path: Path) -> KeyPair:
    pair = read_certificate(path)
    if pair.secret is None:
        raise KeyFileError(f"{path} holds no secret key")
    return pair


def new_pair() -> KeyPair:
    import zmq  # only the key maker needs libzmq's key generator
    public, secret = zmq.curve_keypair()
    return KeyPair(public, secret)


# ---- the cell's keys --------------------------------------------------------------------

def _private_dir(path: Path) -> None:
    """Make ``path`` 0700 (an existing directory must be ours and not a link)."""
    try:
        path.mkdir(mode=KEYS_DIR_MODE)
    except FileExistsError:
        pass
    st = os.lstat(path)
    if not os.path.isdir(path) or os.path.islink(path) or st.st_uid != os.geteuid():
        raise KeyFileError(f"{path} is not a directory of ours")
    os.chmod(path, KEYS_DIR_MODE)


def _public_dir(path: Path) -> None:
    try:
        path.mkdir(mode=PUBLIC_DIR_MODE)
        os.chmod(path, PUBLIC_DIR_MODE)
    except FileExistsError:
        pass


def ensure_pair(cell: Cell, name: str) -> tuple[KeyPair, bool]:
    """The key pair ``name`` of the cell, made now if missing; (pair, made now).

    The secret goes to ``keys/<name>.key_secret``; the public key to
    ``common/keys/qmaster.key`` for the qmaster, to ``keys/trusted/<name>.key``
    (trusted by the qmaster) for the scheduler and execds.
    """
    make_cell_dirs(cell)
    _private_dir(keys_dir(cell))
    _private_dir(trusted_dir(cell))
    path = secret_path(cell, name)
    made = False
    if path.exists():
        pair = read_secret(path)
    else:
        pair = new_pair()
        write_certificate(path, pair)
        made = True
    public = KeyPair(pair.public)
    if name == "qmaster":
        _public_dir(public_dir(cell))
        target = qmaster_public_path(cell)
    else:
        target = trusted_dir(cell) / f"{name}.key"
    if not target.exists() or read_certificate(target).public != pair.public:
        target.unlink(missing_ok=True)
        write_certificate(target, public)
    return pair, made


def ensure_cell_keys(cell: Cell, execd_hosts: list[str]) -> list[str]:
    """Key pairs for the qmaster, the scheduler and the execds of ``execd_hosts``; the
    names of those made now."""
    made = []
    for name in ["qmaster", SCHEDULER, *(execd_name(h) for h in execd_hosts)]:
        if ensure_pair(cell, name)[1]:
            made.append(name)
    return made


def trusted_daemons(directory: Path) -> dict[bytes, TrustedDaemon]:
    """Public key -> daemon, from the ``*.key`` files of ``directory`` (unreadable or
    misnamed files are skipped: a daemon without a readable key is not trusted)."""
    out: dict[bytes, TrustedDaemon] = {}
    try:
        names = sorted(os.listdir(directory))
        if not _safe_from_others(os.stat(directory)):
            return out  # whoever can write there could make any key trusted
    except OSError:
        return out
    for name in names:
        if not name.endswith(".key") or name.startswith("."):
            continue
        stem = name[:-len(".key")]
        if stem == SCHEDULER:
            who = TrustedDaemon(SCHEDULER)
        elif stem.startswith(EXECD_PREFIX) and len(stem) > len(EXECD_PREFIX):
            who = TrustedDaemon("execd", stem[len(EXECD_PREFIX):])
        else:
            continue
        try:
            if not _safe_from_others(os.lstat(directory / name)):
                continue
            out[read_certificate(directory / name).public] = who
        except (KeyFileError, OSError):
            continue
    return out


def _safe_from_others(st: os.stat_result) -> bool:
    """A trusted key (or its directory) counts only if it is ours or root's, not a link,
    and nobody else may write to it."""
    return not stat.S_ISLNK(st.st_mode) and st.st_uid in (0, os.geteuid()) and \
        not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


# ---- a daemon's side ----------------------------------------------------------------------

@dataclass(frozen=True)
class ClientKeys:
    """What a daemon (or a remote client) connects to the qmaster with: its own pair
    and the qmaster's public key, which CURVE makes the qmaster prove."""

    own: KeyPair
    qmaster_public: bytes


def daemon_keys(own_secret: Path, qmaster_public: Path) -> ClientKeys:
    """Read a daemon's keys; KeyFileError says which file is missing and how to make it."""
    try:
        own = read_secret(own_secret)
        server = read_certificate(qmaster_public)
    except KeyFileError as err:
        raise KeyFileError(f"{err} (the cell's administrator makes keys with "
                           "`pyge keys`; see deploy/MULTIHOST.md)") from None
    return ClientKeys(own, server.public)


def secure_client(sock: "zmq.Socket[Any]", keys_: ClientKeys) -> None:
    """Make zmq socket ``sock`` a CURVE client of the qmaster (before it connects), with
    a routing id of 16 random bytes: the qmaster answers and routes by routing id, and
    this one nobody can guess or claim first (it travels inside CURVE). Ids that libzmq
    makes up for peers that bring none are a counter (docs/security.md)."""
    import secrets

    import zmq
    sock.setsockopt(zmq.CURVE_SECRETKEY, keys_.own.secret)
    sock.setsockopt(zmq.CURVE_PUBLICKEY, keys_.own.public)
    sock.setsockopt(zmq.CURVE_SERVERKEY, keys_.qmaster_public)
    if sock.type == zmq.DEALER:
        sock.setsockopt(zmq.ROUTING_ID, b"r" + secrets.token_bytes(16))
