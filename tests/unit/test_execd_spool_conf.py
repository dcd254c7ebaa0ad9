"""execd_spool_dir (sge_conf(5)): where a starting execd spools, host-local over global,
and the value a cell's configuration starts with (qmaster.defaults, qmaster.execd_link)."""
from __future__ import annotations

import time

from qmaster.context import Ctx, Services
from qmaster.defaults import PLACEHOLDER_EXECD_SPOOL_DIR, ensure_execd_spool_dir
from qmaster.execd_link import handle_execd_conf
from qmaster.store import Batch, Store
from tests.unit.test_host_rights import QM, new_store


def spool_of(store: Store, host: str) -> str:
    ctx = Ctx(store, Batch(), Services(epoch="e", qmaster_host=QM), b"c", 1, time.time(),
              {"host": host})
    return str(handle_execd_conf(ctx)["spool"])


def global_value(store: Store) -> str:
    return dict(map(tuple, store.conf["conf"]["global"]))["execd_spool_dir"]


def test_a_host_spools_in_its_own_value_else_the_global_one() -> None:
    store = new_store()
    assert spool_of(store, "h1") == f"{global_value(store)}/h1"
    store.put_conf(Batch(), "conf", "h1", [["execd_spool_dir", "/local/spool"]])
    assert spool_of(store, "h1") == "/local/spool/h1"
    assert spool_of(store, "h2") == f"{global_value(store)}/h2"


def test_a_new_cell_names_its_own_spool_and_an_administrators_value_stays() -> None:
    store = new_store()
    assert global_value(store) == PLACEHOLDER_EXECD_SPOOL_DIR  # (8.1.9's default)
    ensure_execd_spool_dir(store, Batch(), "/cells/c/spool/execd", False)
    assert global_value(store) == "/cells/c/spool/execd"
    ensure_execd_spool_dir(store, Batch(), "/elsewhere", True)  # set: kept
    assert global_value(store) == "/cells/c/spool/execd"


def test_an_old_cell_keeps_its_execds_where_they_spool() -> None:
    used, unused = new_store(), new_store()
    for store in (used, unused):
        store.hosts["h1"] = object()  # (not fresh: it has known an execd)
    ensure_execd_spool_dir(used, Batch(), "/cells/c/spool/execd", True)
    ensure_execd_spool_dir(unused, Batch(), "/cells/c/spool/execd", False)
    assert global_value(used) == "/cells/c/spool/execd"
    assert global_value(unused) == PLACEHOLDER_EXECD_SPOOL_DIR  # (execds spool elsewhere)
