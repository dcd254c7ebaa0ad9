"""Creating and removing what the execd and the shepherd make for jobs, without following
links a user can plant.

Owns the rules of docs/security.md for the execution host's file system: a root execd
works in places users can write to or predict (TMPDIR ``<base>/<job>.<task>.<queue>``,
usually under /tmp), so

- a directory is made with ``os.mkdir``; an entry that is already there is taken only if
  it is a real directory (not a link) that belongs to the expected user, checked on a
  descriptor opened with ``O_NOFOLLOW``, and it is chowned and chmodded through that
  descriptor, never by path;
- a file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` and handed over with ``fchown``;
- a directory whose name is taken by something planted is made under a new random
  name instead (``make_unique_dir``);
- a tree is removed only if its top is a real directory of the expected user, by
  ``shutil.rmtree``'s descriptor-based walk, which never follows links out of the tree.

Nothing here switches user ids; the shepherd decides whose rights an operation runs with.
"""
from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from pathlib import Path

# CPython removes trees through directory descriptors (openat, unlinkat) where the
# platform allows it, and says so with this flag; without it a user could swap a
# directory for a link while root removes the tree. Linux has it; refuse to run without.
if not shutil.rmtree.avoids_symlink_attacks:  # pragma: no cover - not on Linux
    raise ImportError("execd needs a shutil.rmtree that avoids symlink attacks (Linux)")

StrPath = str | os.PathLike[str]
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafePath(Exception):
    """An entry is not what we would have made: a link, not a directory, another owner."""

    def __init__(self, path: StrPath, reason: str) -> None:
        super().__init__(f"{os.fspath(path)} {reason}")
        self.path, self.reason = os.fspath(path), reason


def _open_checked_dir(path: StrPath, uid: int) -> int:
    """A descriptor on directory ``path`` if it is a real directory owned by ``uid``.

    ``lstat`` gives the reason for a refusal; the descriptor (``O_NOFOLLOW``) is what is
    believed, and it must be the entry ``lstat`` saw, or the entry changed in between.
    """
    seen = os.lstat(path)
    if stat.S_ISLNK(seen.st_mode):
        raise UnsafePath(path, "is a symbolic link")
    if not stat.S_ISDIR(seen.st_mode):
        raise UnsafePath(path, "is not a directory")
    try:
        fd = os.open(path, _DIR_FLAGS)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
            raise UnsafePath(path, "changed while it was checked") from e
        raise
    st = os.fstat(fd)
    if not os.path.samestat(seen, st):
        os.close(fd)
        raise UnsafePath(path, "changed while it was checked")
    if st.st_uid != uid:
        os.close(fd)
        raise UnsafePath(path, f"belongs to uid {st.st_uid}, not to uid {uid}")
    return fd


def make_dir(path: StrPath, mode: int, uid: int | None = None, gid: int | None = None) -> bool:
    """Make directory ``path`` (its parent must exist) with exactly ``mode``, owned by
    ``uid``:``gid`` (default: our effective ids); True if it was made now.

    An existing entry is accepted only if it is a real directory that already belongs to
    ``uid``; then its mode (and group) are set as for a new one. Anything else raises
    UnsafePath and is left as it is.
    """
    me = os.geteuid()
    owner = me if uid is None else uid
    try:
        os.mkdir(path, 0o700)  # nobody else can enter it before it is handed over
        created = True
    except FileExistsError:
        created = False
    # A directory we have just made is still ours; once handed over it is the owner's.
    fd = _open_checked_dir(path, me if created else owner)
    try:
        st = os.fstat(fd)
        if (st.st_uid, st.st_gid) != (owner, st.st_gid if gid is None else gid):
            os.fchown(fd, owner, -1 if gid is None else gid)
        os.fchmod(fd, mode)  # exact, whatever the umask
    finally:
        os.close(fd)
    return created


UNIQUE_TRIES = 100


def make_unique_dir(prefix: StrPath, mode: int, uid: int | None = None,
                    gid: int | None = None) -> str:
    """Make a new directory ``<prefix>.<16 random hex digits>`` (its parent must exist)
    with exactly ``mode``, owned by ``uid``:``gid``; its path.

    For a directory whose usual name someone planted an entry at: nobody can predict
    the new name, and ``os.mkdir`` makes it or fails, so nothing planted is ever taken.
    """
    for _ in range(UNIQUE_TRIES):
        path = f"{os.fspath(prefix)}.{secrets.token_hex(8)}"
        try:
            return make_new_dir(path, mode, uid, gid)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free name", os.fspath(prefix))


def make_new_dir(path: StrPath, mode: int, uid: int | None = None,
                 gid: int | None = None) -> str:
    """Make ``path``, which must not exist (FileExistsError if anything is there, a link
    included), with exactly ``mode``, owned by ``uid``:``gid``; its path. Unlike
    ``make_dir`` it never takes an existing directory, not even one of ``uid``'s."""
    path = os.fspath(path)
    os.mkdir(path, 0o700)
    fd = _open_checked_dir(path, os.geteuid())
    try:
        os.fchown(fd, -1 if uid is None else uid, -1 if gid is None else gid)
        os.fchmod(fd, mode)
    finally:
        os.close(fd)
    return path


def make_parents(path: StrPath, mode: int = 0o755) -> None:
    """Make the missing ancestors of ``path`` with ``mode``.

    For paths an administrator chose (the execd spool, the cell): they may contain links
    on purpose; only directories made here get ``mode`` (so that a restrictive umask does
    not lock job owners out of their job directories).
    """
    missing: list[Path] = []
    parent = Path(path).parent
    while not os.path.lexists(parent) and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    for directory in reversed(missing):
        make_dir(directory, mode)


def ensure_dir(path: StrPath, mode: int) -> None:
    """``make_dir`` for a daemon's own directory, making missing ancestors first."""
    make_parents(path)
    make_dir(path, mode)


def create_file(path: StrPath, mode: int, uid: int | None = None,
                gid: int | None = None) -> int:
    """Create the new file ``path`` (never an existing one, never through a link) with
    exactly ``mode``, owned by ``uid``:``gid`` if given; its descriptor, open for writing."""
    fd = os.open(path, _NEW_FILE_FLAGS, 0o600)
    try:
        if uid is not None or gid is not None:
            os.fchown(fd, -1 if uid is None else uid, -1 if gid is None else gid)
        os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_dir(path: StrPath, uid: int) -> None:
    """Raise UnsafePath unless ``path`` is a real directory owned by ``uid``."""
    os.close(_open_checked_dir(path, uid))


def remove_tree(path: StrPath, uid: int) -> None:
    """Remove the directory tree ``path``, which must be a real directory of ``uid``.

    Links inside are removed, never followed. What the caller's rights cannot remove at
    first (a job may leave directories without write permission, as Go's module cache
    does) is made writable, without following links, and removed in a second pass; what
    stays after that is left. A missing ``path`` is not an error.
    """
    try:
        check_dir(path, uid)
    except FileNotFoundError:
        return
    shutil.rmtree(path, ignore_errors=True)
    if os.path.lexists(path):
        _make_writable(path)
        shutil.rmtree(path, ignore_errors=True)


def _make_writable(path: StrPath) -> None:
    """u+rwx on the tree's directories, top first, links neither followed nor changed."""
    _chmod_dir(path, None)
    for _top, dirs, _files, dir_fd in os.fwalk(path, follow_symlinks=False,
                                              onerror=lambda _e: None):
        for name in dirs:  # before fwalk enters them: it needs to read them
            _chmod_dir(name, dir_fd)


def _chmod_dir(name: StrPath, dir_fd: int | None) -> None:
    """chmod 0700 the directory ``name`` (relative to ``dir_fd``), never through a link.

    Linux has no lchmod and fchmod refuses O_PATH descriptors, so the directory is
    pinned with O_PATH | O_NOFOLLOW and changed through its /proc/self/fd entry.
    """
    try:
        fd = os.open(name, _DIR_FLAGS | os.O_PATH, dir_fd=dir_fd)
    except OSError:
        return
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.chmod(f"/proc/self/fd/{fd}", 0o700)
    except OSError:
        pass
    finally:
        os.close(fd)


def admin_executable_problem(path: str, uid: int) -> str | None:
    """Why a root execd must not run ``path`` as an administrator's program (sge_conf(5)
    ``shepherd_cmd``), or None: it must be an absolute path to a regular executable file
    that belongs to root or ``uid`` (the execd's user), as must every directory above
    it, none of them writable by group or others (a directory with the sticky bit, as
    /tmp, may be: nobody can replace another's entry in it). Checked with lstat: a link
    anywhere on the way is refused."""
    if not os.path.isabs(path):
        return "is not an absolute path"
    owners = (0, uid)
    current = os.path.normpath(path)
    try:
        st = os.lstat(current)
        if not stat.S_ISREG(st.st_mode) or not st.st_mode & 0o111:
            return "is either not a file or not executable"
        if st.st_uid not in owners or st.st_mode & 0o022:
            return "belongs to another user or is writable by group or others"
        while current != "/":
            current = os.path.dirname(current)
            st = os.lstat(current)
            if not stat.S_ISDIR(st.st_mode):
                return f"lies below {current}, which is no directory"
            if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
                return f"lies below {current}, which is writable by group or others"
    except OSError as err:
        return f"can't be checked: {err.strerror}"
    return None
