"""The Python client API of pygridengine; the console scripts are built on it.

    from clients.api import Client
    client = Client()                                   # finds the cell via PYGE_ROOT
    [job_id] = client.submit([job_request("/bin/echo", ["hi"], binary=True)])
    results = client.wait([job_id])                     # {job_id: [task results]}

Every method sends one request to the qmaster and returns its answer as plain data;
a refusal raises ``ClientError`` carrying Grid Engine's message. ``submit`` accepts many
jobs at once: they are accepted (and made durable) in one request.
"""
from __future__ import annotations

import _socket
import grp
import os
import pwd
import time

from common import wire
from common.cell import Cell, CellNotFound, cell_from_env, read_act_qmaster
from common.userinfo import UserInfo
from common.zmtp import Dealer, ZmtpClosed, ZmtpError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# What a command loads at start-up is kept to what every run needs (issue 12; the list is
# tests/unit/test_client_imports.py): the host name and name look-ups come from
# ``_socket`` (``socket`` would add 2 ms of enums), the user from ``User`` below (not
# ``common.model``, which loads dataclasses and enum), and the job description's rules
# (``common.jobspec``) only when jobs are submitted.

DEFAULT_TIMEOUT = 60.0
# a job listing whose answer has not begun after this long is a large one (the qmaster
# answers a few dozen jobs in well under a millisecond, 500 in 3 to 4 ms): the client
# imports msgpack, the decoder of large messages, while the qmaster is still at work
# rather than after the answer has come (issue 12: 2 ms of qstat's 500-job listing)
QUICK_ANSWER_SECONDS = 0.001
# a client on the qmaster's host whose socket nobody listens on (a qmaster restarting)
# tries again this often until its request's timeout
LOCAL_RETRY_SECONDS = 0.1
# a request on job targets goes on where the qmaster stopped (Client._on_targets), each
# time at least one job further: this bounds the loop (a million jobs, and more)
MAX_RESUMED_REQUESTS = 10_000


class ClientError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def resolvable(host: str) -> bool:
    """Whether ``host`` resolves, as Grid Engine's clients require of a host named."""
    try:
        _socket.getaddrinfo(host, None)
    except (_socket.gaierror, UnicodeError):
        return False
    return True


def is_own_host(host: str) -> bool:
    """Whether ``host``, the qmaster's address as act_qmaster records it, is this machine:
    our host name (compared as the qmaster compares host names: without case, a short
    name is its FQDN's first label) or an address of ours (one we can bind, loopback
    included). No resolver is asked: any other name counts as another host."""
    name, ours = host.strip().rstrip(".").lower(), _socket.gethostname().rstrip(".").lower()
    if not name:
        return False
    if name in (ours, "localhost"):
        return True
    for family in (_socket.AF_INET, _socket.AF_INET6):
        try:
            _socket.inet_pton(family, name)
        except OSError:
            continue
        return _can_bind(family, name)
    if "." in name and "." in ours:
        return False
    return name.split(".", 1)[0] == ours.split(".", 1)[0]


def _can_bind(family: int, address: str) -> bool:
    """Whether ``address`` is one of this machine's (only those can be bound)."""
    probe = _socket.socket(family, _socket.SOCK_DGRAM)
    try:
        probe.bind((address, 0))
    except OSError:
        return False
    finally:
        probe.close()
    return True


# who sends a request (common.userinfo, shared with the qmaster); any object with
# ``name`` and ``to_dict`` may stand in ``Client.user``
User = UserInfo


def current_user() -> User:
    uid, gid = os.getuid(), os.getgid()
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = str(uid)
    try:
        group = grp.getgrgid(gid).gr_name
    except KeyError:
        group = str(gid)
    return User(name, uid, group, gid, _socket.gethostname())


def job_request(command: str, args: list[str] | None = None, *, binary: bool = False,
                script: bytes | None = None, **opts: Any) -> dict[str, Any]:
    """A submission for ``Client.submit``: the same fields ``qsub`` would produce.

    ``opts`` are ``clients.qsub.options.SubmitOptions`` field names (job_name, cwd,
    stdout_paths, hard_resources, array, hold, priority, ...).
    """
    base = {"job_name": os.path.basename(command) or "STDIN", "binary": binary,
            "script_path": command, "script_args": list(args or [])}
    base.update(opts)
    return {"opts": base, "script": script, "sge_o": submit_environment(),
            "umask": current_umask()}


def checked_jobs(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The jobs as the qmaster will check them (``common.jobspec``, the rules qsub and the
    qmaster share), so a caller learns of a bad one before anything is sent; raises
    ClientError naming the job and field (Grid Engine's words for a job name)."""
    from common.jobspec import JobSpecError, check_submitted_job  # (only submitters need it)
    out = []
    for index, job in enumerate(jobs):
        try:
            out.append(check_submitted_job(job, f"jobs[{index}]" if len(jobs) > 1 else "job"))
        except JobSpecError as err:
            raise ClientError("rejected", err.text) from None
    return out


def current_umask() -> int:
    """Our umask (reading it means setting it: put back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# the submitter's variables 8.1.9 records as SGE_O_<name>, each only when it is set
SUBMIT_VARIABLES = ("HOME", "LOGNAME", "PATH", "SHELL", "MAIL", "TZ")


def submit_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The ``SGE_O_*`` values Grid Engine records at submission: WORKDIR and HOST, and
    those of SUBMIT_VARIABLES the submitter's environment has (8.1.9 leaves out, say,
    ``SGE_O_LOGNAME`` and ``SGE_O_MAIL`` of a job submitted without LOGNAME or MAIL)."""
    env = os.environ if environ is None else environ
    sge_o = {name: env[name] for name in SUBMIT_VARIABLES if name in env}
    sge_o.update(WORKDIR=os.getcwd(), HOST=_socket.gethostname())
    return sge_o


class Client:
    """One connection to the qmaster. On the qmaster's host it goes through the
    qmaster's Unix socket, where the kernel proves who we are (while nobody listens
    there, the qmaster is restarting: the client waits for it, up to its timeout); from
    elsewhere (a shared cell directory whose socket does not answer here) through the
    CURVE port, each request with a MUNGE credential (``clients.remote``). Who we are
    is never what we write: the ``user`` field of a request is replaced by the qmaster
    (docs/security.md).

    ``host``/``port`` name a qmaster without a cell directory (a remote client); it
    then needs ``qmaster_key``, the qmaster's public key (Z85).
    """

    def __init__(self, cell: Cell | None = None, *, host: str | None = None,
                 port: int | None = None, qmaster_key: bytes | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self.socket_path: str | None = None
        if host is None or port is None:
            cell = cell or cell_from_env()
            try:
                host, port, _ = read_act_qmaster(cell)
            except (OSError, IndexError, ValueError):
                raise ClientError("no_qmaster", "unable to contact qmaster: cell "
                                  f"\"{cell.path}\" has no running qmaster") from None
            self.socket_path = cell.file("common", "qmaster.sock")
        self._cell = cell
        self.host, self.port = host, port
        self.qmaster_key = qmaster_key
        self.user = current_user()  # what requests state; the qmaster knows better
        self.timeout = timeout
        self._conn: Any = None
        self._last_id = 0  # request ids: 1, 2, ... (not itertools.count: a module less)

    def _connection(self, timeout: float) -> Any:
        if self._conn is None:
            try:
                self._conn = self._open(timeout)
            except TimeoutError:
                raise self._unreachable("timeout", "no answer") from None
            except OSError as err:
                raise self._unreachable("unreachable", err.strerror or str(err)) from None
        return self._conn

    def _open(self, timeout: float) -> Any:
        if self.socket_path is not None:
            deadline = time.monotonic() + timeout
            on_qmaster_host = is_own_host(self.host)
            while True:
                try:
                    return Dealer(self.host, self.port, max(deadline - time.monotonic(),
                                                            1e-3), unix_path=self.socket_path)
                except (FileNotFoundError, ConnectionRefusedError):
                    if not on_qmaster_host:
                        break  # not the qmaster's host (a shared cell directory): go remote
                except (ConnectionResetError, BrokenPipeError, ZmtpError) as err:
                    # the connection was taken by a qmaster that is dying (its last
                    # threads still held the socket) and dropped before the handshake
                    # was done: nothing of the request has been sent
                    if not on_qmaster_host or (isinstance(err, ZmtpError) and
                                               not isinstance(err, ZmtpClosed)):
                        raise
                # The qmaster's own host, where nobody listens on its socket: it is down
                # or restarting. Never the CURVE port instead: from here that would come
                # from a loopback address, a host no host list names, and a restarted
                # qmaster would refuse the request ("not a submit host"). Wait for it,
                # as a remote client's connection waits for a qmaster that is away.
                if deadline - time.monotonic() <= LOCAL_RETRY_SECONDS:
                    raise ConnectionRefusedError(
                        111, "Connection refused (no qmaster listens on its socket)")
                time.sleep(LOCAL_RETRY_SECONDS)
        if self.qmaster_key is None and self._cell is not None:
            self.qmaster_key = _qmaster_key(self._cell)
        if self.qmaster_key is None:
            raise ClientError("unreachable", "unable to contact qmaster: its public key "
                              "is unknown (<cell>/common/keys/qmaster.key)")
        from clients.remote import RemoteDealer  # (the remote path's modules, only here)
        from common import munge
        return RemoteDealer(self.host, self.port, self.qmaster_key, timeout,
                            munge.socket_from_env())

    def _unreachable(self, code: str, why: str) -> ClientError:
        return ClientError(code, "unable to contact qmaster using port "
                           f"{self.port} on host \"{self.host}\": {why}")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def request(self, msg_type: str, body: dict[str, Any], timeout: float | None = None,
                *, large: bool = False, while_waiting: Callable[[], object] | None = None
                ) -> dict[str, Any]:
        """The qmaster's answer to one request. ``while_waiting``: the caller's work that
        does not need the answer (a command's imports), done once the request is sent,
        while the qmaster works on it. ``large``: the answer may be large (a job listing);
        if it has not begun QUICK_ANSWER_SECONDS after the request, msgpack is imported
        meanwhile too (``wire.load_msgpack``)."""
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        conn = self._connection(limit)
        self._last_id = request_id = self._last_id + 1
        try:
            conn = self._send(conn, wire.encode(msg_type, body, request_id), deadline)
            sent = time.monotonic()
            if while_waiting is not None:
                while_waiting()
            if large and not wire.msgpack_loaded() and not _answer_begun(
                    conn, QUICK_ANSWER_SECONDS - (time.monotonic() - sent)):
                wire.load_msgpack()
            while (left := deadline - time.monotonic()) > 0:
                rtype, rid, rbody = wire.decode(conn.recv(left))
                if rid != request_id:
                    continue  # a late answer to an earlier request
                if rtype == "error":
                    raise ClientError(rbody.get("code", "error"), rbody.get("message", ""))
                return rbody
        except TimeoutError:
            pass
        except (OSError, wire.WireError) as err:
            self.close()
            raise self._unreachable("unreachable", str(err)) from None
        self.close()  # a late answer must not be taken for the next request's
        raise self._unreachable("timeout", "no answer")

    def _send(self, conn: Any, payload: bytes, deadline: float) -> Any:
        """Send ``payload``; the connection it went on. A connection the qmaster closed
        before the request (it was killed, or a dying one took it) is made anew and the
        request sent again: a write that failed was never read whole, so the qmaster has
        not acted on it. (A request whose answer is lost is never sent again: it may have
        been carried out.)"""
        while True:
            try:
                conn.send(payload)
                return conn
            except (BrokenPipeError, ConnectionResetError):
                self.close()
                if deadline - time.monotonic() <= LOCAL_RETRY_SECONDS:
                    raise
                time.sleep(LOCAL_RETRY_SECONDS)
                conn = self._connection(deadline - time.monotonic())

    def _user(self) -> dict[str, Any]:
        return self.user.to_dict()

    # ---- jobs ----------------------------------------------------------------------
    def submit(self, jobs: list[dict[str, Any]]) -> list[int]:
        reply = self.request("submit", {"user": self._user(), "jobs": checked_jobs(jobs)})
        return [int(j) for j in reply["job_ids"]]

    def jobs(self, job_ids: list[int] | None = None, *, include_finished: bool = False,
             with_script: bool = False, explain: bool = False,
             set_aside: bool = False, ranges: bool = False,
             owners: list[str] | None = None, brief: bool = False,
             priorities: bool = False, pe_tasks: bool = False,
             while_waiting: Callable[[], object] | None = None) -> dict[str, Any]:
        """Jobs and tasks; ``explain`` adds ``scheduling_info`` {job id: reason lines}
        for pending jobs (what ``qstat -j`` shows); ``set_aside`` adds ``set_aside``
        {job id: why}: jobs the qmaster found unreadable in its spool at start-up.
        ``ranges``: the tasks not dispatched or changed on their own come as each job's
        range lists (``"ranges"``: ``common.model.TaskRanges``) instead of one record
        each, so that a large array costs no more than a job; ``owners``: only the jobs
        of these owners (patterns); ``brief``: job records with only what a listing shows
        (``qmaster.jobs.LISTING_OPTS``), and of them and of the ranges only the fields
        that are set (read an absent one as empty); ``priorities``: ``"priorities"`` {job
        id: the policy's figures, ``qmaster.policy_view.job_figures``} of the jobs that
        wait or run; ``while_waiting``: as ``request``'s, for the first part."""
        body: dict[str, Any] = {"user": self._user(), "include_finished": include_finished,
                                "with_script": with_script, "explain": explain,
                                "set_aside": set_aside, "ranges": ranges, "brief": brief}
        if priorities:  # (sent only when asked: a qmaster without it refuses the field)
            body["priorities"] = True
        if pe_tasks:  # ``"pe_tasks"``: the running parallel tasks of the tasks (qstat -t)
            body["pe_tasks"] = True
        if job_ids is not None:
            body["job_ids"] = list(job_ids)
        if owners is not None:
            body["owners"] = list(owners)
        # a listing (no job ids) may be large: its decoder is loaded while the qmaster works
        reply = self.request("job_query", body, large=job_ids is None,
                             while_waiting=while_waiting)
        for _ in range(MAX_RESUMED_REQUESTS):  # the answer comes in parts: the rest
            after = reply.pop("next", None)
            if after is None:
                return reply
            if type(after) is not int or after <= body.get("after", 0):
                raise ClientError("malformed", "the qmaster's answer goes on where it began")
            body["after"] = after
            part = self.request("job_query", body)
            for name in ("jobs", "tasks", "ranges", "pe_tasks"):
                if name in part:
                    reply.setdefault(name, []).extend(part[name])
            for name in ("scheduling_info", "priorities"):
                if name in part:
                    reply.setdefault(name, {}).update(part[name])
            reply["next"] = part.get("next")
        raise ClientError("malformed", f"job listing still not done after "
                          f"{MAX_RESUMED_REQUESTS} parts")

    def delete(self, targets: list[dict[str, Any]], *, force: bool = False
               ) -> list[dict[str, Any]]:
        """Delete jobs; ``force`` (managers only) forgets running ones at once (qdel -f)."""
        return self._on_targets("delete", {"user": self._user(), "targets": targets,
                                           "force": force})

    def hold(self, targets: list[dict[str, Any]], hold_type: str = "u") -> list[dict[str, Any]]:
        return self._on_targets("hold", {"user": self._user(), "targets": targets,
                                         "hold_type": hold_type})

    def release(self, targets: list[dict[str, Any]], hold_type: str = "u"
                ) -> list[dict[str, Any]]:
        return self._on_targets("release", {"user": self._user(), "targets": targets,
                                            "hold_type": hold_type})

    def _on_targets(self, msg_type: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The results of a request on job targets. The qmaster works through so many
        jobs per request and says where to go on (``resume``: a target's index, and the
        last job it did of a user or name target): the rest is sent again until done, as
        Grid Engine's qdel repeats a discontinued transaction."""
        targets, results = list(body["targets"]), []
        for _ in range(MAX_RESUMED_REQUESTS):
            reply = self.request(msg_type, {**body, "targets": targets})
            results += reply["results"]
            resume = reply.get("resume")
            if not resume:
                return results
            targets = _resumed(targets, resume)
        raise ClientError(f"{msg_type}: still not done after {MAX_RESUMED_REQUESTS} "
                          "requests")

    def alter(self, targets: list[dict[str, Any]], changes: dict[str, Any]
              ) -> list[dict[str, Any]]:
        """Change the requests of pending jobs (qalter); ``changes`` are
        ``SubmitOptions`` field names: hard_resources, soft_resources, hard_queues,
        soft_queues, priority, job_name, pe, pe_ranges, hold_jid. One result per job:
        ``result`` ("modified", "denied" or "unknown") and Grid Engine's ``messages``."""
        return self._on_targets("alter", {"user": self._user(), "targets": targets,
                                          "changes": changes})

    def wait(self, job_ids: list[int], timeout: float | None = None
             ) -> dict[int, list[dict[str, Any]]]:
        """Block until every job has finished; survives qmaster restarts by asking again."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            slice_ = 30.0 if deadline is None else max(0.0, min(30.0, deadline - time.monotonic()))
            try:
                reply = self.request("wait", {"user": self._user(), "job_ids": job_ids},
                                     timeout=slice_)
            except ClientError as err:
                if err.code not in ("timeout", "unreachable") or \
                        (deadline and time.monotonic() >= deadline):
                    raise
                time.sleep(0.5)  # the qmaster may be restarting
                continue
            if reply.get("unknown"):
                raise ClientError("unknown", "unknown job(s): " +
                                  ", ".join(str(j) for j in reply["unknown"]))
            return {int(k): v for k, v in reply["jobs"].items()}

    def events(self, *, epoch: str | None = None, after: int | None = None,
               timeout: float = 0.0, kinds: list[str] | None = None,
               owners: list[str] | None = None, max_events: int = 1000) -> dict[str, Any]:
        """One answer of the event subscription (version 1, docs/events.md): the events
        after the cursor (``epoch``, ``after``), waiting up to ``timeout`` seconds (at most
        60) for some. ``{"version", "epoch", "seq", "gap", "events"}``: go on from
        (``epoch``, ``seq``); ``gap`` means events were missed (re-read the state).
        ``clients.events.subscribe`` loops over it, with resumption."""
        body: dict[str, Any] = {"user": self._user(), "epoch": epoch, "after": after,
                                "timeout": float(timeout), "kinds": kinds, "owners": owners,
                                "max": max_events}
        return self.request("events", body, timeout=timeout + EVENTS_ANSWER_SECONDS)

    # ---- cluster and configuration --------------------------------------------------
    def cluster(self, *, resources: bool = False, select: str | None = None) -> dict[str, Any]:
        """Hosts and queue instances; ``resources`` adds each instance's ``qstat -F``
        lines ([source, name, value]) and ``host_resources``, each host's ``qhost -F``
        lines ([source, name, raw value, type, shortcut]; "global" too), as the
        qmaster's bookkeeping sees them; ``select`` (a -l list) adds ``selected``:
        the ``instances`` ("queue@host") and ``hosts`` that offer it now."""
        body: dict[str, Any] = {"user": self._user(), "resources": resources}
        if select is not None:  # (sent only when asked: a qmaster without it refuses it)
            body["select"] = select
        return self.request("cluster_query", body)

    def conf_get(self, kind: str) -> dict[str, Any]:
        return self.request("conf_get", {"user": self._user(), "kind": kind})["objects"]

    def conf_put(self, kind: str, name: str, data: Any, mode: str) -> dict[str, Any]:
        return self.request("conf_put", {"user": self._user(), "kind": kind, "name": name,
                                         "data": data, "mode": mode})

    def conf_del(self, kind: str, name: str) -> dict[str, Any]:
        return self.request("conf_del", {"user": self._user(), "kind": kind, "name": name})

    def usage_query(self) -> dict[str, Any]:
        """Every holder's share tree usage decayed to now (qmaster.usage_book)."""
        return self.request("usage_query", {"user": self._user()})

    def share_tree(self, decay: bool = False) -> dict[str, Any]:
        """sge_share_mon's figures: ``tree`` (whether the cell has a share tree) and
        ``nodes``, one row per node (``qmaster.policy_view.share_tree_rows``)."""
        return self.request("share_tree_query", {"user": self._user(), "decay": decay})

    def trigger_monitor(self) -> dict[str, Any]:
        """qconf -tsm: the qmaster writes a scheduler run log; ``message`` says who
        triggered it."""
        return self.request("trigger_monitor", {"user": self._user()})

    def daemon_control(self, action: str, names: list[str] | None = None) -> dict[str, Any]:
        """qconf -km -ks -kt -at -ke -kej -kec -secl -sss (qmaster.daemon_control): what
        to print on stdout (``out``) and stderr (``err``), and the exit ``status``."""
        return self.request("daemon_control", {"user": self._user(), "action": action,
                                               "names": names or []})

    def clear_usage(self, users: list[str] | None = None) -> dict[str, Any]:
        """qconf -clearusage: every user's and project's share tree usage, or the
        named users' (``users``)."""
        return self.request("clear_usage", {"user": self._user(), "users": users or []})

    def userset_entries(self, op: str, users: list[str], lists: list[str]
                        ) -> list[dict[str, Any]]:
        """Add ("add") or remove ("delete") users and ``@groups`` to/from access lists in
        one request (qconf -au/-du; a missing list is created by "add"). One result per
        user and list, lists outermost: ``ok`` and Grid Engine's ``message``."""
        return self.request("userset_entries", {"user": self._user(), "op": op,
                                                "users": users, "lists": lists})["results"]


EVENTS_ANSWER_SECONDS = 10.0  # an event poll's answer may come this long after its timeout


def _answer_begun(conn: Any, timeout: float) -> bool:
    """Whether the qmaster's answer has begun to arrive within ``timeout`` seconds;
    nothing is read. A remote connection says so itself (``answered``); on the local
    ``common.zmtp.Dealer``, a peek at its socket does. A failed connection counts as
    answered: reading the answer reports it."""
    answered = getattr(conn, "answered", None)
    if answered is not None:
        return bool(answered(timeout))
    try:
        conn.sock.settimeout(max(timeout, 1e-6))  # (each read of the Dealer sets its own)
        conn.sock.recv(1, _socket.MSG_PEEK)
    except TimeoutError:
        return False
    except OSError:
        pass
    return True


def _resumed(targets: list[dict[str, Any]], resume: Any) -> list[dict[str, Any]]:
    """The targets a repeated request sends: from the one the qmaster stopped in, going
    on after the last job it did there. A ``resume`` that makes no progress is refused
    (a faulty qmaster must not keep the command going round)."""
    index = resume.get("target") if isinstance(resume, dict) else None
    after = resume.get("after") if isinstance(resume, dict) else None
    if type(index) is not int or not 0 <= index < len(targets) or \
            (after is not None and type(after) is not int):
        raise ClientError("malformed", f"malformed resume in the qmaster's answer: {resume!r}")
    rest = targets[index:]
    if after is not None:
        if after <= int(rest[0].get("after") or 0):
            raise ClientError("malformed", "the qmaster's answer resumes where it began")
        rest[0] = {**rest[0], "after": after}
    elif index == 0:
        raise ClientError("malformed", "the qmaster's answer resumes where it began")
    return rest


def _qmaster_key(cell: Cell) -> bytes | None:
    from common.keys import KeyFileError, qmaster_public_path, read_certificate
    try:
        return read_certificate(qmaster_public_path(cell)).public
    except KeyFileError:
        return None


def connect_or_exit(prog: str) -> Client:
    """A client for a console script, or a Grid Engine style error and exit status."""
    try:
        return Client()
    except (CellNotFound, ClientError) as err:
        import sys
        msg = err.message if isinstance(err, ClientError) else str(err)
        print(f"error: {msg}", file=sys.stderr)
        raise SystemExit(1) from None
