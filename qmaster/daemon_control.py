"""qconf's daemon control, answered by the qmaster as 8.1.9's is (captured:
tests/data/reference/qconf-control/, capture-daemons.sh): ``-km`` (the qmaster stops as
on SIGTERM once it has answered), ``-ke``/``-kej`` (execds stop as on SIGTERM; ``-kej``
kills their jobs first), ``-ks``, ``-kt scheduler`` and ``-kec 1`` (the scheduler, a
process of its own here, is told on the event port to stop, which it does as on
SIGTERM), ``-at`` (refused: the qmaster cannot start a process on the scheduler's
host), ``-secl`` and ``-sss`` (the event clients: qmaster.event_clients).

Everything that stops a daemon is for managers only, checked before anything is done,
in 8.1.9's words; the listings are for everyone, as in 8.1.9. The answer says what to
print where (``out``: stdout, ``err``: stderr) and qconf's exit status.
"""
from __future__ import annotations

from typing import Any

from common import wire
from qmaster.context import Ctx
from qmaster.event_clients import SCHEDULER_ID
from qmaster.host_rights import require_admin_host

# 8.1.9's refusals for a user who is no manager (captured: user-*)
NOT_MANAGER = {"km": "shutting down qmaster requires manager privileges",
               "ke": "shutting down execd requires manager privileges",
               "kej": "shutting down execd requires manager privileges",
               "ks": "shutdown requires manager privileges",
               "kec": "shutdown requires manager privileges",
               "kt": "shutdown requires manager privileges",
               # (8.1.9 starts and stops threads for anyone: captured user-kt-*, user-at-*)
               "at": "starting threads requires manager privileges"}
SCHEDULER_ABSENT = "no scheduler registered at qmaster"
THREADS = ("scheduler", "jvm")
NO_JVM = ("error: this version has no JVM thread (it runs no Java) and cannot start or "
          "stop one")
AT_SCHEDULER = ("error: the scheduler is a process of its own here, not a thread of the "
                "qmaster: start it on its host (pyge-scheduler, or systemctl start "
                "pyge-scheduler)")
SECL_HEADER = [f"{'ID':>8} {'NAME':<15} {'HOST':<25}", "-" * 50]


def handle_daemon_control(ctx: Ctx) -> dict[str, Any]:
    """Permission first (a manager for every stop, then an administrative host, where
    8.1.9's qconf runs anyway), then the action."""
    action, names = ctx.body["action"], list(ctx.body.get("names") or [])
    if action in NOT_MANAGER and not ctx.store.is_manager(ctx.user.name):
        return _answer(err=[NOT_MANAGER[action]], status=1)
    require_admin_host(ctx.store, ctx.user)
    return ACTIONS[action](ctx, names)


def _answer(out: list[str] | None = None, err: list[str] | None = None, status: int = 0
            ) -> dict[str, Any]:
    return {"out": out or [], "err": err or [], "status": status}


def _kill_master(ctx: Ctx, _names: list[str]) -> dict[str, Any]:
    """-km: answered, then the qmaster stops as on SIGTERM (QmasterServer.stop)."""
    if ctx.services.stop_server is not None:
        ctx.services.after_commit.append(ctx.services.stop_server)
    return _answer(err=[f"{ctx.user.name}@{ctx.user.host or ctx.services.qmaster_host} "
                        "kills qmaster"])


def _stop_scheduler(ctx: Ctx) -> bool:
    """Tell the scheduler to stop (on the event port, which only it reads); False when
    no scheduler is registered."""
    if ctx.services.event_clients.drop(SCHEDULER_ID) is None:
        return False
    services = ctx.services
    if services.publish is not None:
        publish = services.publish
        services.after_commit.append(lambda: publish(wire.encode_shutdown(services.epoch)))
    return True


def _kill_scheduler(ctx: Ctx, _names: list[str]) -> dict[str, Any]:
    if not _stop_scheduler(ctx):
        return _answer(err=[SCHEDULER_ABSENT], status=1)
    return _answer(err=["sent shutdown notification to scheduler"])


def _kill_thread(ctx: Ctx, names: list[str]) -> dict[str, Any]:
    """-kt scheduler|jvm: 8.1.9 answers with exit status 0 whatever happens."""
    thread = names[0] if names else ""
    if thread not in THREADS:
        return _answer(err=[f'thread with name "{thread}" is not supported'])
    if thread == "jvm":
        return _answer(err=[NO_JVM], status=1)
    if not _stop_scheduler(ctx):
        return _answer(err=["scheduler thread is not running"])
    return _answer(err=["scheduler thread terminated"])


def _add_thread(ctx: Ctx, names: list[str]) -> dict[str, Any]:
    """-at scheduler: a running scheduler is told as 8.1.9 tells it; else refused, the
    qmaster having no clean way to start a process on the scheduler's host."""
    thread = names[0] if names else ""
    if thread not in THREADS:
        return _answer(err=[f'thread with name "{thread}" is not supported'])
    if thread == "jvm":
        return _answer(err=[NO_JVM], status=1)
    if ctx.services.event_clients.listed(ctx.now):
        return _answer(err=["scheduler thread is already running"])
    return _answer(err=[AT_SCHEDULER], status=1)


def _kill_execds(ctx: Ctx, names: list[str], kill_jobs: bool) -> dict[str, Any]:
    """-ke/-kej host_list|all: each connected execd is told to stop (-kej: after killing
    its jobs); a host without one is named, and the exit status is then 1 (8.1.9's
    words: captured ke-down, ke-all-down, kej-down; "to  execd" has its two blanks)."""
    store, routes = ctx.store, ctx.services.execd_routes
    hosts = sorted(h for h in store.hosts if h not in ("global", "template")) \
        if "all" in names else [_exec_host(store.hosts, n) for n in names]
    what = "shutdown and kill" if kill_jobs else "shutdown"
    err, status = [], 0
    for host in hosts:
        exec_host = store.hosts.get(host)
        route = routes.get(host)
        if exec_host is None or not exec_host.alive or route is None:
            err.append(f"no execd known on host {host}" if "all" in names else
                       f"failed sending {what} notification to unknown execd host {host}")
            status = 1
            continue
        ctx.batch.send(route, "execd_shutdown", {"kill_jobs": kill_jobs})
        err.append(f"sent {what} notification to  execd host {host}")
    return _answer(err=err, status=status)


def _exec_host(hosts: dict[str, Any], name: str) -> str:
    """The execution host a name given stands for (its short name, as hosts are kept)."""
    return name if name in hosts else name.partition(".")[0]


def _kill_event_clients(ctx: Ctx, names: list[str]) -> dict[str, Any]:
    """-kec all|id,...: 8.1.9 leaves the scheduler out of "all" (captured: kec-all);
    ids that are no number are passed over, as 8.1.9 does (kec-bad)."""
    err, status = [], 0
    ids = [] if "all" in names else [int(n) for n in names if n.isdigit()]
    for client_id in ids:
        if client_id == SCHEDULER_ID:
            if _stop_scheduler(ctx):
                err.append("sent shutdown notification to scheduler")
            else:
                err.append(SCHEDULER_ABSENT)
                status = 1
        else:  # (the scheduler is this version's only event client)
            err.append(f"no event client known with id {client_id} to shutdown")
            status = 1
    return _answer(err=err, status=status)


def _show_event_clients(ctx: Ctx, _names: list[str]) -> dict[str, Any]:
    rows = [f"{c.client_id:>8} {c.name:<15} {c.host:<25}"
            for c in ctx.services.event_clients.listed(ctx.now)]
    return _answer(out=SECL_HEADER + rows)


def _show_scheduler_host(ctx: Ctx, _names: list[str]) -> dict[str, Any]:
    listed = ctx.services.event_clients.listed(ctx.now)
    if not listed:
        return _answer(err=["no scheduling host defined"], status=1)
    return _answer(out=[listed[0].host])


ACTIONS = {"km": _kill_master, "ks": _kill_scheduler, "kt": _kill_thread,
           "at": _add_thread,
           "ke": lambda ctx, names: _kill_execds(ctx, names, False),
           "kej": lambda ctx, names: _kill_execds(ctx, names, True),
           "kec": _kill_event_clients, "secl": _show_event_clients,
           "sss": _show_scheduler_host}
