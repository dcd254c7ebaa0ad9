"""``$SGE_ROOT/bin/$ARC/``: the commands where Grid Engine keeps them, for programs that
look there rather than on PATH; and ``$SGE_ROOT/util/resources/jsv/jsv_include.sh``, the
helpers JSV scripts source.

Open MPI's tight integration (ras:gridengine, plm:rsh) starts its daemons with
``qrsh -inherit`` and, when no ``qrsh`` is on the job's PATH, runs
``$SGE_ROOT/bin/$ARC/qrsh``; job scripts written for Grid Engine call
``$SGE_ROOT/bin/$ARC/qsub`` likewise. A job gets ``SGE_ROOT`` (the cell root) and ``ARC``
(``execd.load.host_arch``) from its execd, so ``pyge up`` writes one small launcher per
command of this installation there (``write_launchers``): a shell script that runs the
command installed beside the interpreter (the environment pyge runs from).

A launcher is written under a fresh name and renamed into place (never through a link
someone planted), 0755, in directories of the cell's owner; one that is already right
is left alone.
"""
from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

COMMANDS = ("qacct", "qalter", "qconf", "qdel", "qhold", "qhost", "qlogin", "qmod",
            "qquota", "qrdel", "qrls", "qrsh", "qrstat", "qrsub", "qsh", "qstat", "qsub",
            "sge_share_mon")
DIR_MODE, FILE_MODE = 0o755, 0o755


def launcher_dir(root: Path, arch: str) -> Path:
    return root / "bin" / arch


def launcher_text(target: str) -> str:
    """The launcher of the command installed at ``target``."""
    return f"#!/bin/sh\n# pygridengine: written by pyge up\nexec {shlex.quote(target)} \"$@\"\n"


def installed_commands(bin_dir: Path) -> dict[str, str]:
    """The commands of COMMANDS found in ``bin_dir``: name -> path."""
    found = {}
    for name in COMMANDS:
        path = bin_dir / name
        if path.is_file() and os.access(path, os.X_OK):
            found[name] = str(path)
    return found


def write_launchers(root: Path, arch: str | None = None,
                    bin_dir: Path | None = None) -> list[str]:
    """Write ``<root>/bin/<arch>/<command>`` for each installed command; the names
    written or rewritten."""
    if arch is None:
        from execd.load import host_arch
        arch = host_arch()
    bin_dir = bin_dir or Path(sys.executable).parent
    target_dir = launcher_dir(root, arch)
    for directory in (root / "bin", target_dir):
        try:
            os.mkdir(directory, DIR_MODE)
        except FileExistsError:
            if directory.is_symlink() or not directory.is_dir():
                raise OSError(f"{directory} is not a directory") from None
    written = [name for name, target in installed_commands(bin_dir).items()
               if _write_file(target_dir, name, launcher_text(target), FILE_MODE)]
    write_jsv_include(root)
    return written


def _make_dirs(root: Path, parts: tuple[str, ...]) -> Path:
    directory = root
    for part in parts:
        directory = directory / part
        try:
            os.mkdir(directory, DIR_MODE)
        except FileExistsError:
            if directory.is_symlink() or not directory.is_dir():
                raise OSError(f"{directory} is not a directory") from None
    return directory


def _write_file(directory: Path, name: str, text: str, mode: int) -> bool:
    """``directory/name`` with ``text`` (written under a fresh name, renamed into place);
    False when it was right already."""
    path = directory / name
    try:
        if not path.is_symlink() and path.read_text() == text:
            return False
    except OSError:
        pass
    tmp = directory / f".{name}.{os.getpid()}.tmp"
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    return True


# the JSV helpers site scripts source, where 8.1.9 keeps them (common.jsv)
JSV_DIR = ("util", "resources", "jsv")
JSV_INCLUDE = Path(__file__).resolve().parent.joinpath(*JSV_DIR, "jsv_include.sh")


def write_jsv_include(root: Path) -> None:
    """``<root>/util/resources/jsv/jsv_include.sh`` (0644: sourced, not run)."""
    _write_file(_make_dirs(root, JSV_DIR), JSV_INCLUDE.name, JSV_INCLUDE.read_text(), 0o644)


def main(argv: list[str] | None = None) -> int:
    """``python -m deploy.launchers ROOT``: write the launchers under ROOT."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m deploy.launchers SGE_ROOT", file=sys.stderr)
        return 2
    try:
        written = write_launchers(Path(args[0]))
    except OSError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"{len(written)} launchers written in {args[0]}/bin")
    return 0


if __name__ == "__main__":
    sys.exit(main())
