"""The commands of the installation under test, for tests that run them as users do.

Never whatever comes first on ``PATH``: a machine may have Grid Engine's own ``qstat``
there (tests/conftest.py even puts stand-ins that fail first on ``PATH`` for the whole
session, so that a bare name cannot slip through). ``command("qstat")`` is the
console script of this environment when it is ours (pip writes ``from clients.qstat
import main`` into it), else the module run by this interpreter.
"""
from __future__ import annotations

import sys
import sysconfig
from functools import cache
from pathlib import Path

# console script -> the module whose main() it runs (pyproject.toml [project.scripts])
ENTRY_MODULES = {
    "pyge": "deploy.cell", "qsub": "clients.qsub.main", "qstat": "clients.qstat",
    "qdel": "clients.qdel", "qhold": "clients.qhold", "qrls": "clients.qrls",
    "qalter": "clients.qalter", "qacct": "clients.qacct.main", "qhost": "clients.qhost",
    "qconf": "clients.qconf.main", "qmod": "clients.qmod.main", "qquota": "clients.qquota",
    "sge_share_mon": "clients.share_mon", "qselect": "clients.qselect",
    "qevent": "clients.qevent",
    "qresub": "clients.qresub", "qping": "clients.qping",
    "qrsub": "clients.ar.qrsub", "qrstat": "clients.ar.qrstat", "qrdel": "clients.ar.qrdel",
    "qrsh": "clients.qrsh.main", "qlogin": "clients.qrsh.main", "qsh": "clients.qrsh.main",
}
COMMANDS = frozenset(ENTRY_MODULES) - {"pyge"}


def command(name: str) -> list[str]:
    """argv of our command ``name`` (a new list: callers append their arguments)."""
    return list(_command(name))


@cache
def _command(name: str) -> tuple[str, ...]:
    module = ENTRY_MODULES[name]
    script = Path(sysconfig.get_path("scripts")) / name
    try:
        ours = f"from {module} import main" in script.read_text(errors="replace")[:2048]
    except OSError:
        ours = False
    if ours:
        return (str(script),)
    if name in ("qlogin", "qsh"):  # one module, told apart by the name it is run by
        return (sys.executable, str(Path(__file__).resolve().parents[1] / "clients"
                                    / "scripts" / name))
    return (sys.executable, "-m", module)  # each of them runs main() as __main__
