"""Administrative and submit hosts: the host comparison, the rules per request and their
Grid Engine 8.1.9 messages (captured in tests/data/reference/auth), the host lists'
entries and a new cell's lists.

Handlers are called directly with a ``Ctx`` whose requester is built here, so that the
host a request comes from is the test's to choose."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients.api import ClientError, job_request
from clients.jobctl import host_refusal
from clients.qconf.base import QconfError
from clients.qconf import hosts as qconf_hosts
from common import wire
from common.model import UserInfo
from common.schema import Struct
from qmaster import (alter, daemon_control, event_feed, jobs, pe_tasks, policy_view,
                     queue_control, sched_monitor, usage_book)
from qmaster.conf import requests as conf_requests
from qmaster.conf import userset as conf_userset
from qmaster.ar import handlers as ar_handlers
from qmaster.context import Ctx, RequestError, Services
from qmaster.defaults import bootstrap, ensure_host_lists
from qmaster.host_rights import (
    ADMIN_HOSTS, HOST_RIGHTS, SUBMIT_HOSTS, find_host, host_name_problem, same_host,
)
from qmaster.spool import SqliteSpool
from qmaster.store import Batch, Store
from tests.reference import REFERENCE

AUTH = REFERENCE / "auth"
QM = "qm"  # the qmaster's host
Handler = Any


# ---- comparing host names -------------------------------------------------------------
# labels start with a letter: "0.0.0.0" is an address, which matches only itself
# [a-z]([a-z0-9-]{0,8}[a-z0-9])?, built from its parts (from_regex draws it several
# times slower)
_LOWER, _ALNUM = "abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz0123456789"
label = st.tuples(st.sampled_from(_LOWER),
                  st.none() | st.tuples(st.text(alphabet=_ALNUM + "-", max_size=8),
                                        st.sampled_from(_ALNUM))
                  ).map(lambda t: t[0] + ("" if t[1] is None else "".join(t[1])))
domain = st.lists(label, min_size=1, max_size=3).map(".".join)


@given(label, domain)
def test_a_short_name_is_its_fqdn(short: str, rest: str) -> None:
    fqdn = f"{short}.{rest}"
    assert same_host(short, fqdn) and same_host(fqdn, short)
    assert same_host(short.upper(), fqdn) and same_host(fqdn + ".", short)


@given(st.lists(label, min_size=1, max_size=4).map(".".join), st.booleans())
def test_every_name_is_itself_whatever_its_case(name: str, upper: bool) -> None:
    assert same_host(name, name.upper() if upper else name)


@given(label, domain, domain)
def test_two_fqdns_are_one_host_only_when_equal(short: str, one: str, two: str) -> None:
    assert same_host(f"{short}.{one}", f"{short}.{two}") == (one == two)


@given(domain, domain)
def test_the_comparison_is_symmetric(a: str, b: str) -> None:
    assert same_host(a, b) == same_host(b, a)


@pytest.mark.parametrize("a, b, same", [
    ("vm", "VM", True), ("vm", "vm.example.org", True), ("vm.example.org", "VM", True),
    ("vm", "vm2", False), ("vm.a.org", "vm.b.org", False), ("vm.", "vm", True),
    ("10.0.0.5", "10.0.0.5", True), ("10.0.0.5", "10", False), ("10", "10.0.0.5", False),
    ("::1", "::1", True), ("", "", False), ("", "vm", False), ("vm", "", False),
])
def test_host_names_compare(a: str, b: str, same: bool) -> None:
    assert same_host(a, b) is same


def test_find_host_answers_the_stored_entry() -> None:
    names = ["localhost", "vm.example.org"]
    assert find_host("VM", names) == "vm.example.org"
    assert find_host("vm.other.org", names) is None
    assert find_host("", names) is None


@pytest.mark.parametrize("name", ["", "a b", "a,b", "@allhosts", "h*", "global", "NONE",
                                  "-x", "h\u00e9"])
def test_what_no_host_is_called_is_refused(name: str) -> None:
    assert host_name_problem(name) == f'can\'t resolve hostname "{name}"'


@pytest.mark.parametrize("name", ["vm", "vm.example.org", "10.0.0.5", "fe80::1", "a_b"])
def test_host_names_and_addresses_are_entries(name: str) -> None:
    assert host_name_problem(name) is None


# ---- a cell ------------------------------------------------------------------------------
def new_store(qmaster_host: str = QM) -> Store:
    store, batch = Store(), Batch()
    bootstrap(store, batch, ["root"], 0)
    ensure_host_lists(store, batch, qmaster_host)
    store.forget_journal()
    return store


def user(host: str, name: str = "root") -> UserInfo:
    uid = 0 if name == "root" else 1001
    return UserInfo(name, uid, name, uid, host)


def call(store: Store, handler: Handler, msg_type: str, who: UserInfo,
         **fields: Any) -> dict[str, Any]:
    """``handler`` with a body as ``wire.decode`` gives it (canonical, defaults filled)."""
    _, _, body = wire.decode(wire.encode(msg_type, {"user": who.to_dict(), **fields}, 1))
    ctx = Ctx(store, Batch(), Services(epoch="e", qmaster_host=QM), b"c", 1, time.time(),
              body)
    return handler(ctx)


def refusal(store: Store, handler: Handler, msg_type: str, who: UserInfo,
            **fields: Any) -> str | None:
    try:
        reply = call(store, handler, msg_type, who, **fields)
    except RequestError as err:
        return err.message
    results = reply.get("results") or [{}]  # userset_entries answers per list and user
    return results[0].get("message") if results[0].get("ok") is False else None


def host_refused(answer: str | None) -> bool:
    return (answer or "").startswith('denied: host "')


# every request a user sends, with a body the handler accepts
REQUESTS: dict[str, tuple[Handler, dict[str, Any]]] = {
    "submit": (jobs.handle_submit, {"jobs": [job_request("/bin/true", binary=True,
                                                          hold=True)]}),
    "delete": (jobs.handle_delete, {"targets": [{"job_id": 1}]}),
    "hold": (jobs.handle_hold, {"targets": [{"job_id": 1}], "hold_type": "u"}),
    "release": (jobs.handle_release, {"targets": [{"job_id": 1}], "hold_type": "u"}),
    "alter": (alter.handle_alter, {"targets": [{"job_id": 1}], "changes": {"job_name": "x"}}),
    "wait": (jobs.handle_wait, {"job_ids": [1]}),
    "job_query": (jobs.handle_job_query, {}),
    "cluster_query": (conf_requests.handle_cluster_query, {}),
    "conf_get": (conf_requests.handle_conf_get, {"kind": "queue"}),
    "conf_put": (conf_requests.handle_conf_put, {"kind": "manager", "name": "u1",
                                                   "data": None, "mode": "add"}),
    "conf_del": (conf_requests.handle_conf_del, {"kind": "operator", "name": "u1"}),
    "userset_entries": (conf_userset.handle_userset_entries,
                        {"op": "add", "users": ["u1"], "lists": ["arusers"]}),
    "qmod": (queue_control.handle_qmod,
             {"items": [{"action": "disable", "scope": "queue", "ref": "all.q"}]}),
    "usage_query": (usage_book.handle_usage_query, {}),
    "share_tree_query": (policy_view.handle_share_tree_query, {}),
    "clear_usage": (usage_book.handle_clear_usage, {}),
    "trigger_monitor": (sched_monitor.handle_trigger_monitor, {}),
    "daemon_control": (daemon_control.handle_daemon_control, {"action": "ks"}),
    # advance reservations: qrsub and qrdel as qsub and qdel, qrstat as qstat
    "ar_submit": (ar_handlers.handle_ar_submit, {"ar": {"duration": 60.0}}),
    "ar_delete": (ar_handlers.handle_ar_delete, {"ar_ids": [1]}),
    "ar_query": (ar_handlers.handle_ar_query, {}),
    # qrsh -inherit: as a read (from an execution host too)
    # the event subscription (qevent): as a read
    "events": (event_feed.handle_events, {"timeout": 0.0}),
    "pe_task_start": (pe_tasks.handle_pe_task_start, {
        "job_id": 1, "task_id": 1, "host": "node1", "command": "true", "args": [],
        "session": {"kind": "qrsh", "host": "h", "port": 1, "token": b"t" * 32}}),
}
JOB_CHANGES = ("submit", "delete", "hold", "release", "alter", "ar_submit", "ar_delete")
# qmod changes states, but from an administrative or a submit host (qmaster.queue_control)
READS = ("wait", "job_query", "cluster_query", "conf_get", "qmod", "usage_query",
         "share_tree_query", "ar_query", "pe_task_start", "events")
CONF_CHANGES = ("conf_put", "conf_del", "userset_entries", "clear_usage", "trigger_monitor",
                "daemon_control")


def test_every_user_request_is_covered() -> None:
    by_user = {t for t, s in wire.MESSAGE_SCHEMAS.items()
               if isinstance(s, Struct) and "user" in s.required}
    assert by_user == set(REQUESTS) == set(JOB_CHANGES + READS + CONF_CHANGES)


def captured(name: str, host: str) -> str:
    """The one line 8.1.9 printed (tests/data/reference/auth), for ``host``."""
    text = (AUTH / f"{name}.out").read_text() + (AUTH / f"{name}.err").read_text()
    line = text.splitlines()[0].removeprefix("Unable to run job: ").removeprefix("error: ")
    return line.replace('"localhost"', f'"{host}"').replace('"vm"', f'"{host}"')


def submit_only(store: Store, host: str) -> None:
    store.set_list(Batch(), SUBMIT_HOSTS, store.lists[SUBMIT_HOSTS] + [host])


def admin_only(store: Store, host: str) -> None:
    store.set_list(Batch(), ADMIN_HOSTS, store.lists[ADMIN_HOSTS] + [host])


@pytest.mark.parametrize("msg_type", sorted(REQUESTS))
def test_a_host_that_is_neither_is_refused_everything(msg_type: str) -> None:
    store = new_store()
    handler, fields = REQUESTS[msg_type]
    expected = {**{t: captured("neither-qsub-user", "far") for t in JOB_CHANGES},
                **{t: captured("neither-qstat-user", "far") for t in READS},
                # the qmaster's rule for changes; qconf asks first and gets "neither"
                "conf_put": captured("submitonly-am-root", "far"),
                "conf_del": captured("submitonly-am-root", "far"),
                "clear_usage": captured("submitonly-am-root", "far"),
                "trigger_monitor": captured("submitonly-am-root", "far"),
                "daemon_control": captured("submitonly-am-root", "far"),
                "userset_entries": captured("neither-au-root", "far")}
    assert refusal(store, handler, msg_type, user("far"), **fields) == expected[msg_type]


@pytest.mark.parametrize("msg_type", sorted(REQUESTS))
def test_a_submit_host_changes_jobs_but_not_configuration(msg_type: str) -> None:
    store = new_store()
    submit_only(store, "sub.example.org")
    handler, fields = REQUESTS[msg_type]
    answer = refusal(store, handler, msg_type, user("sub"), **fields)
    if msg_type in CONF_CHANGES:
        assert answer == captured("submitonly-au-root", "sub")
    else:
        assert not host_refused(answer)


@pytest.mark.parametrize("msg_type", sorted(REQUESTS))
def test_an_admin_host_changes_configuration_but_not_jobs(msg_type: str) -> None:
    store = new_store()
    admin_only(store, "adm")
    handler, fields = REQUESTS[msg_type]
    answer = refusal(store, handler, msg_type, user("ADM.example.org"), **fields)
    if msg_type in JOB_CHANGES:  # not even root may: captured nosubmit-qdel-root
        assert answer == captured("nosubmit-qdel-root", "ADM.example.org")
    else:
        assert not host_refused(answer)


def test_the_host_is_checked_before_the_jobs_owner() -> None:
    store = new_store()
    job = call(store, jobs.handle_submit, "submit", user(QM),
               jobs=[job_request("/bin/true", binary=True, hold=True)])["job_ids"][0]
    admin_only(store, "adm")
    answer = refusal(store, jobs.handle_hold, "hold", user("adm", "alice"),
                     targets=[{"job_id": job}], hold_type="u")
    assert answer == captured("adminonly-qhold-other-users-job", "adm")


def test_the_user_is_checked_before_the_host_for_configuration() -> None:
    store = new_store()  # as 8.1.9's qmaster orders sge_chck_mod_perm_user/_host
    answer = refusal(store, conf_requests.handle_conf_put, "conf_put", user("far", "alice"),
                     kind="adminhost", name="far", data=None, mode="add")
    assert answer == 'denied: "alice" must be manager for this operation'


def test_exec_hosts_read_the_cluster_configuration_only() -> None:
    store = new_store()
    store.put_conf(Batch(), "exechost", "node1", [["hostname", "node1"]])
    node = user("node1.example.org")
    get = conf_requests.handle_conf_get
    assert refusal(store, get, "conf_get", node, kind="conf") is None
    assert refusal(store, get, "conf_get", node, kind="queue") == \
        captured("execonly-sh-user", "node1.example.org")
    assert refusal(store, jobs.handle_job_query, "job_query", node) == \
        captured("execonly-qstat-user", "node1.example.org")
    assert refusal(store, jobs.handle_submit, "submit", node, **REQUESTS["submit"][1]) == \
        captured("execonly-qsub-user", "node1.example.org")
    assert not host_refused(refusal(store, pe_tasks.handle_pe_task_start,
                                    "pe_task_start", node, **REQUESTS["pe_task_start"][1]))


def test_host_rights_say_what_the_qmaster_makes_of_the_requester() -> None:
    store = new_store()
    submit_only(store, "sub")
    get = conf_requests.handle_conf_get
    assert call(store, get, "conf_get", user(QM), kind=HOST_RIGHTS)["objects"] == {
        "host": QM, "admin": True, "submit": True}
    assert call(store, get, "conf_get", user("sub.x.org"), kind=HOST_RIGHTS)["objects"] == {
        "host": "sub.x.org", "admin": False, "submit": True}
    assert refusal(store, get, "conf_get", user("far"), kind=HOST_RIGHTS) == \
        captured("neither-sh-user", "far")
    assert qconf_hosts.HOST_RIGHTS == HOST_RIGHTS  # the client's copy of the kind


# ---- the lists' entries: qconf -ah/-dh/-as/-ds --------------------------------------
def put(store: Store, kind: str, name: str, who: UserInfo | None = None) -> str:
    try:
        return call(store, conf_requests.handle_conf_put, "conf_put", who or user(QM),
                    kind=kind, name=name, data=None, mode="add")["message"]
    except RequestError as err:
        return err.message


def delete(store: Store, kind: str, name: str) -> str:
    try:
        return call(store, conf_requests.handle_conf_del, "conf_del", user(QM),
                    kind=kind, name=name)["message"]
    except RequestError as err:
        return err.message


def text_of(name: str, host: str = "localhost") -> str:
    """8.1.9's first stderr line of a capture, with this test's qmaster host."""
    line = (AUTH / f"{name}.err").read_text().splitlines()[0]
    return line.replace("root@vm", f"root@{QM}").replace('"vm"', f'"{host}"')


def test_entries_are_added_and_removed_in_grid_engine_words() -> None:
    store = new_store()
    assert put(store, ADMIN_HOSTS, "localhost") == text_of("ah-add")
    assert store.lists[ADMIN_HOSTS] == ["localhost", QM]
    assert put(store, ADMIN_HOSTS, "localhost") == text_of("ah-list")
    assert put(store, SUBMIT_HOSTS, "localhost") == text_of("as-add-two")
    assert delete(store, ADMIN_HOSTS, "localhost") == text_of("dh-remove")
    assert delete(store, ADMIN_HOSTS, "localhost") == text_of("dh-not-in-list")
    assert delete(store, SUBMIT_HOSTS, "localhost") == text_of("ds-remove")
    assert delete(store, SUBMIT_HOSTS, "localhost") == text_of("ds-not-in-list")
    assert delete(store, SUBMIT_HOSTS, QM) == text_of("ds-qmaster-host", QM)
    assert store.lists[SUBMIT_HOSTS] == []


def test_an_entry_is_matched_like_a_host() -> None:
    store = new_store()
    assert put(store, ADMIN_HOSTS, "QM.example.org") == 'adminhost "qm" already exists'
    assert put(store, SUBMIT_HOSTS, "qm.example.org") == 'submithost "qm" already exists'
    assert put(store, SUBMIT_HOSTS, "node1.example.org") == \
        "node1.example.org added to submit host list"
    assert delete(store, SUBMIT_HOSTS, "NODE1") == \
        f'root@{QM} removed "node1.example.org" from submit host list'


def test_the_qmaster_host_stays_an_admin_host() -> None:
    store = new_store()
    assert delete(store, ADMIN_HOSTS, "QM.example.org") == text_of("dh-qmaster-host", QM)
    assert store.lists[ADMIN_HOSTS] == [QM]


def test_entries_must_be_host_names() -> None:
    store = new_store()
    assert put(store, ADMIN_HOSTS, "a b") == 'can\'t resolve hostname "a b"'
    assert put(store, SUBMIT_HOSTS, "@allhosts") == 'can\'t resolve hostname "@allhosts"'
    assert store.lists == new_store().lists


def test_only_managers_change_the_lists() -> None:
    store = new_store()
    plain = user(QM, "sgeuser")
    assert put(store, ADMIN_HOSTS, "localhost", plain) == text_of("ah-as-user-resolvable")
    assert delete_as(store, SUBMIT_HOSTS, QM, plain) == text_of("ds-as-user")


def delete_as(store: Store, kind: str, name: str, who: UserInfo) -> str:
    try:
        return call(store, conf_requests.handle_conf_del, "conf_del", who, kind=kind,
                    name=name)["message"]
    except RequestError as err:
        return err.message


# ---- a new cell, an old spool ----------------------------------------------------------
def test_a_new_cell_has_its_qmaster_host_as_admin_and_submit_host() -> None:
    store = new_store("vm")
    assert store.lists[ADMIN_HOSTS] == ["vm"] and store.lists[SUBMIT_HOSTS] == ["vm"]


def test_the_lists_are_spooled_and_read_back(tmp_path: Path) -> None:
    spool = SqliteSpool(tmp_path / "spool")
    store, batch = Store(), Batch()
    ensure_host_lists(store, batch, "vm")
    spool.commit(batch.txn)
    again = Store()
    again.load(*spool.load())
    spool.close()
    assert again.lists[ADMIN_HOSTS] == ["vm"] and again.lists[SUBMIT_HOSTS] == ["vm"]


def spool_with(admin: list[str], submit: list[str]) -> Store:
    store = Store()
    store.load({ADMIN_HOSTS: dict.fromkeys(admin, 1), SUBMIT_HOSTS: dict.fromkeys(submit, 1)},
               {})
    return store


def test_a_removed_submit_host_stays_removed_across_starts() -> None:
    store, batch = spool_with(["vm"], []), Batch()
    ensure_host_lists(store, batch, "vm")
    assert store.lists[SUBMIT_HOSTS] == [] and not batch.txn
    assert batch.events == []


def test_a_spool_from_before_the_lists_gets_them() -> None:
    store, batch = spool_with([], []), Batch()
    ensure_host_lists(store, batch, "vm")
    assert store.lists[ADMIN_HOSTS] == ["vm"] and store.lists[SUBMIT_HOSTS] == ["vm"]


def test_a_moved_qmaster_becomes_an_admin_host_but_no_submit_host() -> None:
    store, batch = spool_with(["old"], ["old"]), Batch()
    ensure_host_lists(store, batch, "new.example.org")  # as 8.1.9's qmaster at every start
    assert store.lists[ADMIN_HOSTS] == ["new.example.org", "old"]
    assert store.lists[SUBMIT_HOSTS] == ["old"]


def test_a_known_qmaster_host_is_not_added_twice() -> None:
    store, batch = spool_with(["vm.example.org"], []), Batch()
    ensure_host_lists(store, batch, "vm")
    assert store.lists[ADMIN_HOSTS] == ["vm.example.org"] and not batch.txn


def test_no_qmaster_host_no_entry() -> None:
    store, batch = Store(), Batch()
    ensure_host_lists(store, batch, "")
    assert store.lists[ADMIN_HOSTS] == [] and not batch.txn


# ---- qconf's name resolution -----------------------------------------------------------
def test_qconf_resolves_names_as_grid_engine_stores_them() -> None:
    assert qconf_hosts.canonical_name("nosuchhost.invalid") is None
    assert same_host(qconf_hosts.canonical_name("LOCALHOST") or "", "localhost")
    assert qconf_hosts.canonical_name("127.0.0.1")  # the address's name, or the address


class FakeClient:
    """Answers conf_get(HOST_RIGHTS) as a qmaster would, or refuses it."""

    def __init__(self, rights: dict[str, Any] | None) -> None:
        self.rights = rights

    def conf_get(self, kind: str) -> Any:
        assert kind == HOST_RIGHTS
        if self.rights is None:
            raise ClientError("denied", captured("neither-sh-user", "far"))
        return self.rights


def test_qconf_works_on_an_administrative_host_only() -> None:
    check: Any = qconf_hosts.on_admin_host  # takes a Client; these are fakes of one
    admin = FakeClient({"host": "vm", "admin": True, "submit": False})
    assert check(admin) is admin
    with pytest.raises(QconfError) as refused:
        check(FakeClient({"host": "sub", "admin": False, "submit": True}))
    assert refused.value.message == captured("submitonly-sh-user", "sub")
    with pytest.raises(QconfError) as refused:
        check(FakeClient(None))
    assert refused.value.message == captured("neither-sh-user", "far")


def test_job_commands_tell_host_refusals_apart() -> None:
    assert host_refusal(ClientError("denied", captured("nosubmit-qdel-user", "vm")))
    assert not host_refusal(ClientError("denied", 'denied: "u" must be manager for this '
                                                  "operation"))
