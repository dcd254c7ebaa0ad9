"""What a command loads when it starts (issue 12).

Workflow engines and shell loops run ``qsub`` once per job and ``qstat`` every few
seconds, so a command imports at start-up only what every run of it needs; the rest is
imported where the runs that need it do. Time is measured by the benchmarks, not here;
these tests keep the import lists from growing back:

- ``qsub`` has an allowlist: every module ``import clients.qsub.main`` may add, the
  standard library's and ours, by name. A module that is not on it fails the test.
- The other commands have a denylist of heavy modules, with the exceptions that modules
  outside the clients still force on them, each naming its cause. An exception that is
  no longer needed fails the test too, so that the list only ever shrinks.

The probe runs in a fresh interpreter without ``site`` (``-S``), which loads nothing but
``os`` first: ``site`` and the ``.pth`` files of an environment (an editable install, a
CA bundle hook) import dozens of modules that would hide the command's own.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

# ---- qsub: the allowlist -------------------------------------------------------------

QSUB_STDLIB = frozenset({
    "__future__",               # from __future__ import annotations
    "grp", "pwd",               # the submitting user's names (clients.api.current_user)
    "_socket",                  # the host name, the qmaster's Unix socket (not socket: enums)
    "math",                     # common.schema (finite numbers)
})
QSUB_PROJECT = frozenset({
    "clients", "clients.api", "common.record", "common.userinfo",
    "clients.qsub",
    "clients.qsub.main", "clients.qsub.messages", "clients.qsub.options",
    "clients.qsub.parser", "clients.qsub.values",
    "common", "common.cell", "common.jobspec", "common.schema", "common.wire", "common.zmtp",
})
# (msgpack is not on the list: common.wire packs and unpacks small messages itself;
# clients.joblist neither: only -t and -pe parse task ranges)

HOW_TO_UPDATE = (
    "Every module qsub imports at start-up costs every job submitted through it. Import it "
    "where the runs that need it do (inside the function), or, if every qsub run needs it, "
    "add it deliberately to QSUB_STDLIB or QSUB_PROJECT in tests/unit/test_client_imports.py, "
    "with its cost from `python -X importtime -c 'import clients.qsub.main'`.")

# ---- the other commands: the denylist ------------------------------------------------

HEAVY = frozenset({
    # the standard library's costly imports
    "dataclasses", "inspect", "ast", "dis", "tokenize", "typing", "enum", "re", "fnmatch",
    "functools", "pathlib", "urllib", "socket", "selectors", "datetime", "signal",
    "subprocess", "tempfile", "shutil", "threading", "ipaddress", "hashlib", "secrets",
    "uuid", "json", "logging", "asyncio", "copy", "weakref", "contextlib", "collections",
    "struct",
    # msgpack (loaded with the first large message) and the daemons' libraries
    "msgpack", "zmq", "psutil", "structlog",
    # our modules that only some runs (or the remote path) need
    "common.munge", "common.keys", "clients.remote", "common.model", "common.jobstate",
    "common.cluster", "common.objects_conf", "common.resource", "common.placement",
    "common.quota", "common.accounting", "clients.views.detail", "qmaster", "scheduler",
    "execd",
    # the scheduling policy's records and core (about 20 ms of dataclasses): the qmaster
    # works the figures out, the commands only print them
    "common.policy.model", "common.policy.priority", "common.policy.inputs",
    "common.policy.usage", "common.policy.tickets", "common.policy.sharetree",
})
# what dataclasses and re bring along
_DATACLASSES = ("dataclasses", "inspect", "ast", "dis", "tokenize", "copy", "weakref",
                "contextlib", "collections", "typing")
_RE = ("re", "enum", "functools")
# command -> {module it still loads: the cause}; only what the clients cannot change
EXCEPTIONS: dict[str, dict[str, str]] = {
    "clients.qacct.main": {
        m: "common.accounting (dataclass AccountingRecord, pathlib, typing)"
        for m in (*_DATACLASSES, *_RE, "fnmatch", "pathlib", "urllib", "ipaddress",
                  "common.accounting")},
    "clients.qconf.main": {
        m: "common.objects_conf, common.quota.rqs_format and common.resource, which every "
           "qconf option table imports (dataclasses, enum, re, typing)"
        for m in (*_DATACLASSES, *_RE, "common.objects_conf", "common.quota",
                  "common.resource")},
}
COMMANDS = ("clients.qdel", "clients.qhold", "clients.qrls", "clients.qalter", "clients.qstat",
            "clients.qhost", "clients.qacct.main", "clients.qconf.main", "clients.qmod.main",
            "clients.ar.qrsub", "clients.ar.qrstat", "clients.ar.qrdel")

PROBE = """
import os, sys
sys.path[:0] = {path!r}
before = set(sys.modules)
import {module}
print(" ".join(sorted(set(sys.modules) - before)))
print(" ".join(sorted(before)))
"""


def loaded_by(module: str) -> tuple[set[str], set[str]]:
    """(modules ``import module`` adds, modules loaded before it) in a fresh interpreter."""
    probe = PROBE.format(path=[p for p in sys.path if p], module=module)
    done = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True,
                          text=True, timeout=60, check=True)
    added, before = done.stdout.split("\n")[:2]
    return set(added.split()), set(before.split())


def _covers(prefixes: frozenset[str] | tuple[str, ...], name: str) -> bool:
    """Whether ``name`` is one of ``prefixes`` or a module inside one of them."""
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_qsub_loads_only_the_modules_on_its_list() -> None:
    added, before = loaded_by("clients.qsub.main")
    allowed = QSUB_STDLIB | QSUB_PROJECT
    new = sorted(added - allowed)
    assert new == [], f"clients.qsub.main now loads {new} at start-up. {HOW_TO_UPDATE}"
    stale = sorted(allowed - added - before)
    assert stale == [], (f"clients.qsub.main no longer loads {stale}: remove them from the "
                         "lists in tests/unit/test_client_imports.py")


@pytest.mark.parametrize("module", COMMANDS)
def test_a_command_loads_no_heavy_module_it_can_do_without(module: str) -> None:
    added, before = loaded_by(module)
    excepted = EXCEPTIONS.get(module, {})
    unwanted = sorted(m for m in added
                      if _covers(HEAVY, m) and not _covers(tuple(excepted), m))
    assert unwanted == [], (
        f"{module} loads {unwanted} at start-up: import them where the runs that need "
        "them do. (A module outside the clients that forces one on the command goes "
        "into EXCEPTIONS in tests/unit/test_client_imports.py, naming the cause.)")
    gone = sorted(m for m in excepted
                  if not any(_covers((m,), name) for name in added | before))
    assert gone == [], (f"{module} no longer loads {gone}: remove them from its EXCEPTIONS "
                        "in tests/unit/test_client_imports.py")



@pytest.mark.parametrize("module", ["qmaster.main", "scheduler.main", "execd.main"])
def test_a_daemon_decodes_with_msgpack_itself(module: str) -> None:
    # common.wire's small codec is for the commands' start-up only: what peers send to a
    # daemon is read by msgpack
    code = f"import sys, {module}; sys.exit(0 if 'msgpack' in sys.modules else 1)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
