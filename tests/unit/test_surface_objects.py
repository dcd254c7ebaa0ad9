"""The configuration objects' rows of docs/compatibility.md's surface table against 8.1.9.

Each ``### object NAME`` sub-section must list exactly the parameters 8.1.9's object has:
taken from captures of 8.1.9 (tests/data/reference) where there is one, else from our
parser's table checked against the man page's list. Each row must then say the truth
about our parsers: a ``refused`` parameter is refused with a non-default value by the
check ``qconf`` and the qmaster apply (in-process), with the message its notes quote; an
``as 8.1.9`` or ``differs`` one is accepted with a non-default value.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import pytest

from common.conffile import ConfError
from common.objects_conf import KINDS, normalize_object, template
from common.objects_conf.calendar import calendar_problem
from common.objects_conf.ckpt import ckpt_problem
from common.objects_conf.project import project_problem
from common.objects_conf.sharetree import (FIELDS as SHARETREE_FIELDS, parse_sharetree,
                                           sharetree_problem)
from common.objects_conf.userset import userset_problems
from common.quota.rqs_format import FILTERS, RULE_KEYWORDS, RqsFormatError, parse_rule_sets
from common.resource.centry import FIELDS as CENTRY_FIELDS
from common.resource.complex_rules import validate_attr
from common.placement.resources import QUEUE_RESOURCES
from common.resource.complexes import ComplexError, default_complexes, parse_complex_line
from execd.load import format_load
from tests.reference import REFERENCE
from tests.surface_table import Row, read_surface

TABLE = read_surface()


def _attribute_names(path: Path) -> list[str]:
    """The first word of each ``name value`` line of a ``qconf -s*`` capture
    (continuation lines, which start with a blank, and ``#`` lines skipped)."""
    names = []
    for line in path.read_text().splitlines():
        if line.strip() and not line[0].isspace() and not line.startswith(("#", "{", "}")):
            names.append(line.split()[0])
    return names


def _assignment_names(path: Path) -> list[str]:
    """The distinct ``name`` of each ``name=value`` line (``qconf -sstree``), in order."""
    return list(dict.fromkeys(line.split("=", 1)[0]
                              for line in path.read_text().splitlines() if "=" in line))


def _rqs_set_keys(path: Path) -> list[str]:
    """The keys of a rule set as ``qconf -srqs`` shows them (indented inside braces)."""
    return [line.split()[0] for line in path.read_text().splitlines()
            if line.strip() and line.strip() not in "{}"]


# sge_resource_quota(5): "limit [name name] [users user_list] [projects project_list]
# [pes pe_list] [queues queue_list] [hosts host_list] to resource=value,..."
RQS_RULE_WORDS = ("name", "users", "projects", "pes", "queues", "hosts", "to")
# sge_request(5), FILES
SGE_REQUEST_FILES = ("<sge_root>/<cell>/common/sge_request", "$HOME/.sge_request",
                     "$cwd/.sge_request")


def _rqs_parameters() -> list[str]:
    keys = _rqs_set_keys(REFERENCE / "qconf-srqs-sample.txt")
    limits = " ".join(line for path in sorted((REFERENCE / "rqs").glob("*.input"))
                      for line in path.read_text().splitlines()
                      if line.strip().startswith("limit"))
    used = set(limits.split())
    assert set(RQS_RULE_WORDS) <= used, "every rule word appears in a captured limit"
    assert RULE_KEYWORDS == RQS_RULE_WORDS and FILTERS == RQS_RULE_WORDS[1:-1]
    return keys + [word for word in RQS_RULE_WORDS if word not in keys]


def _complex_columns() -> list[str]:
    header = (REFERENCE / "qconf-sc.default.txt").read_text().splitlines()[0]
    columns = header.lstrip("#").split()
    assert tuple(columns) == CENTRY_FIELDS  # qconf -sce's fields, our parser's
    return columns


def _builtin_complexes() -> list[str]:
    """The attributes of a new 8.1.9 cell's ``qconf -sc``."""
    return [line.split()[0] for line in
            (REFERENCE / "qconf-sc.default.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def _load_values_of_8_1_9() -> list[str]:
    """The load values 8.1.9's execd reported (``qconf -se``)."""
    text = (REFERENCE / "qconf-se-host.txt").read_text()
    listed = re.search(r"^load_values\s+(.*?)^processors", text, re.S | re.M)
    assert listed is not None
    items = listed.group(1).replace("\\", " ").replace(",", " ").split()
    return [item.split("=", 1)[0] for item in items]


def _pe_parameters() -> list[str]:
    lists = [_attribute_names(REFERENCE / f"qconf-sp-{name}.txt")
             for name in ("make", "mpi", "smp")]
    assert lists[0] == lists[1] == lists[2]
    return lists[0]


# sge_qquota(5), FILES
SGE_QQUOTA_FILES = ("<sge_root>/<cell>/common/sge_qquota", "$HOME/.sge_qquota")


def _sge_request_files() -> list[str]:
    # no capture names them: the man page's list, and what qsub reads (test below)
    return list(SGE_REQUEST_FILES)


EIGHT_ONE_NINE: dict[str, Callable[[], list[str]]] = {
    "queue_conf": lambda: _attribute_names(REFERENCE / "qconf-sq.template.txt"),
    "sched_conf": lambda: _attribute_names(REFERENCE / "qconf-ssconf.default.txt"),
    "complex": lambda: _complex_columns() + _builtin_complexes(),
    "host_conf": lambda: _attribute_names(REFERENCE / "qconf-se-host.txt"),
    "sge_pe": _pe_parameters,
    "checkpoint": lambda: _attribute_names(REFERENCE / "ckpt" / "attr-sckpt.out"),
    "calendar_conf": lambda: _attribute_names(REFERENCE / "load" / "Acal-xmas-show.out"),
    "access_list": lambda: _attribute_names(REFERENCE / "projects" / "setup-su-acl_out.txt"),
    "project": lambda: _attribute_names(REFERENCE / "projects" / "setup-sprj-pacl.txt"),
    "user": lambda: _attribute_names(REFERENCE / "policy" / "g12b-qconf-suser-after.out"),
    "share_tree": lambda: _assignment_names(REFERENCE / "policy" / "g8-qconf-sstree.out"),
    "sge_resource_quota": _rqs_parameters,
    "hostgroup": lambda: _attribute_names(REFERENCE / "qconf-shgrp-allhosts.txt"),
    "sge_request": _sge_request_files,
    "sge_qquota": lambda: list(SGE_QQUOTA_FILES),
}


def _rows(section: str) -> dict[str, Row]:
    return TABLE.get(("object", section), {})


def test_every_object_of_8_1_9_has_a_section() -> None:
    """(sge_conf, the cluster configuration, and the files it owns have sub-sections
    of their own, checked with it.)"""
    objects = {name for kind, name in TABLE if kind == "object"}
    assert set(EIGHT_ONE_NINE) <= objects


@pytest.mark.parametrize("section", sorted(EIGHT_ONE_NINE))
def test_rows_are_the_parameters_of_8_1_9(section: str) -> None:
    expected = EIGHT_ONE_NINE[section]()
    listed = list(_rows(section))
    missing = [name for name in expected if name not in listed]
    unknown = [name for name in listed if name not in expected]
    assert not missing, f"{section}: 8.1.9 parameters without a row: {missing}"
    assert not unknown, f"{section}: rows 8.1.9 does not have: {unknown}"


# --- each row against our parsers -----------------------------------------------------

# A value other than the template's for every parameter of the kinds qconf reads with
# common.objects_conf; a refused parameter's value is the one its row's notes quote.
KIND_OF_SECTION = {"queue_conf": "queue", "sched_conf": "sched", "host_conf": "exechost",
                   "sge_pe": "pe", "checkpoint": "ckpt", "calendar_conf": "calendar",
                   "access_list": "userset", "project": "project", "user": "user",
                   "hostgroup": "hostgroup"}

SAMPLES: dict[str, dict[str, str]] = {
    "queue_conf": {
        "qname": "big.q", "hostlist": "@allhosts vm", "seq_no": "10",
        "load_thresholds": "np_load_avg=2", "suspend_thresholds": "np_load_avg=3",
        "nsuspend": "2", "suspend_interval": "00:01:00", "priority": "5",
        "min_cpu_interval": "00:10:00", "processors": "0-1", "qtype": "BATCH",
        "ckpt_list": "c1", "pe_list": "mpi", "rerun": "TRUE", "slots": "4",
        "tmpdir": "/scratch", "shell": "/bin/bash", "prolog": "/opt/prolog.sh",
        "epilog": "root@/opt/epilog.sh", "shell_start_mode": "unix_behavior",
        "starter_method": "/opt/starter.sh", "suspend_method": "SIGTSTP",
        "resume_method": "/opt/resume.sh", "terminate_method": "SIGINT",
        "notify": "00:00:10", "owner_list": "alice", "user_lists": "staff",
        "xuser_lists": "guests", "subordinate_list": "low.q=1", "complex_values": "lic=2",
        "projects": "p1", "xprojects": "p2", "calendar": "night", "initial_state": "disabled",
        **{name: "01:00:00" for name in ("s_rt", "h_rt", "s_cpu", "h_cpu")},
        **{name: "1G" for name in ("s_fsize", "h_fsize", "s_data", "h_data", "s_stack",
                                   "h_stack", "s_core", "h_core", "s_rss", "h_rss",
                                   "s_vmem", "h_vmem")},
    },
    "sched_conf": {
        "algorithm": "x", "schedule_interval": "0:0:5", "maxujobs": "3",
        "queue_sort_method": "seqno", "job_load_adjustments": "np_load_avg=0.25",
        "load_adjustment_decay_time": "0:5:0", "load_formula": "np_load_avg*2",
        "schedd_job_info": "false", "flush_submit_sec": "1", "flush_finish_sec": "1",
        "params": "MONITOR=1", "reprioritize_interval": "0:1:0", "halftime": "24",
        "usage_weight_list": "cpu=0.5,mem=0.5,io=0", "compensation_factor": "2",
        "weight_user": "0.5", "weight_project": "0.1", "weight_department": "0.1",
        "weight_job": "0.3", "weight_tickets_functional": "1000",
        "weight_tickets_share": "1000", "share_override_tickets": "FALSE",
        "share_functional_shares": "FALSE", "max_functional_jobs_to_schedule": "10",
        "report_pjob_tickets": "FALSE", "max_pending_tasks_per_job": "5",
        "halflife_decay_list": "cpu=60", "policy_hierarchy": "SF", "weight_ticket": "0.1",
        "weight_waiting_time": "1", "weight_deadline": "10", "weight_urgency": "0.2",
        "weight_priority": "1", "max_reservation": "10", "default_duration": "1:0:0",
    },
    "host_conf": {
        "hostname": "node1", "load_scaling": "np_load_avg=2", "complex_values": "lic=2",
        "load_values": "np_load_avg=0.5", "processors": "4", "user_lists": "staff",
        "xuser_lists": "guests", "projects": "p1", "xprojects": "p2",
        "usage_scaling": "cpu=2", "report_variables": "cpu",
    },
    "sge_pe": {
        "pe_name": "mpi2", "slots": "8", "user_lists": "staff", "xuser_lists": "guests",
        "start_proc_args": "/opt/start.sh $pe_hostfile", "stop_proc_args": "/opt/stop.sh",
        "allocation_rule": "$round_robin", "control_slaves": "TRUE",
        "job_is_first_task": "FALSE", "urgency_slots": "max", "accounting_summary": "TRUE",
        "qsort_args": "libqs.so qsort",
    },
    "checkpoint": {
        "ckpt_name": "c2", "interface": "application-level", "ckpt_command": "/bin/ck",
        "migr_command": "/bin/mig", "restart_command": "/bin/rst", "clean_command": "/bin/cln",
        "ckpt_dir": "/scratch", "signal": "usr2", "when": "m",
    },
    "calendar_conf": {"calendar_name": "night", "year": "24.12.2026=off",
                      "week": "mon-fri=18-8=off"},
    "access_list": {"name": "d1", "type": "DEPT", "fshare": "10", "oticket": "5",
                    "entries": "alice,@staff"},
    "project": {"name": "p1", "oticket": "5", "fshare": "10", "acl": "staff",
                "xacl": "guests"},
    "user": {"name": "alice", "oticket": "5", "fshare": "10", "delete_time": "1700000000",
             "default_project": "p1"},
    "hostgroup": {"group_name": "@big", "hostlist": "vm @small"},
}


def _whole_object_problem(kind: str, pairs: list[tuple[str, str]]) -> str | None:
    """The qmaster's check of the whole object, for the kinds that have one."""
    if kind == "ckpt":
        return ckpt_problem(pairs)
    if kind == "calendar":
        return calendar_problem(pairs)
    if kind == "project":
        return project_problem(pairs, usersets=["staff", "guests"])
    if kind == "userset":
        problems = userset_problems(pairs, add=True)
        return problems[0] if problems else None
    return None


def _check_object(kind: str, object_name: str, name: str, value: str) -> str:
    """The object ``object_name`` of ``kind`` (a template) with ``name`` set to ``value``,
    as qconf and the qmaster check it: the canonical value, or ConfError."""
    pairs = [(key, value if key == name else default)
             for key, default in template(kind, object_name)]
    if all(key != name for key, _ in pairs):
        pairs.append((name, value))  # a read-only attribute (exec host load_values)
    checked = normalize_object(kind, pairs)
    problem = _whole_object_problem(kind, checked)
    if problem:
        raise ConfError(problem)
    return dict(checked)[name]


OBJECT_ROWS = [(section, name) for section in KIND_OF_SECTION
               for name in _rows(section)]


@pytest.mark.parametrize("section,name", OBJECT_ROWS)
def test_each_row_says_what_qconf_does(section: str, name: str) -> None:
    kind = KINDS[KIND_OF_SECTION[section]]
    row = _rows(section)[name]
    value = SAMPLES[section][name]
    object_name = SAMPLES[section].get(kind.key, "")
    default = dict((a.name, a.default) for a in kind.attrs)[name]
    assert value != default, f"{section} {name}: the sample must not be the default"
    if row.state == "refused":
        with pytest.raises(ConfError) as refusal:
            _check_object(kind.name, object_name, name, value)
        assert str(refusal.value) in row.notes, "the notes quote the refusal"
    else:
        assert _check_object(kind.name, object_name, name, value) != default


def test_samples_name_only_listed_parameters() -> None:
    for section, samples in SAMPLES.items():
        assert set(samples) == set(_rows(section)), section


# complex(5): a line per attribute, one column changed from a requestable INT at a time
COMPLEX_BASE = {"name": "lic", "shortcut": "lic", "type": "INT", "relop": "<=",
                "requestable": "YES", "consumable": "NO", "default": "0", "urgency": "0"}
COMPLEX_SAMPLES = {"name": {"name": "licence"}, "shortcut": {"shortcut": "l"},
                   "type": {"type": "MEMORY"}, "relop": {"relop": ">="},
                   "requestable": {"requestable": "FORCED"},
                   "consumable": {"consumable": "JOB"},
                   "default": {"consumable": "YES", "default": "1"},
                   "urgency": {"urgency": "100"}}


@pytest.mark.parametrize("column", sorted(COMPLEX_SAMPLES))
def test_each_complex_column_is_taken(column: str) -> None:
    assert _rows("complex")[column].state != "refused"
    fields = {**COMPLEX_BASE, **COMPLEX_SAMPLES[column]}
    attr = parse_complex_line(" ".join(fields[f] for f in CENTRY_FIELDS))
    assert validate_attr(attr) == []
    shown = {"name": attr.name, "shortcut": attr.shortcut, "type": attr.type.value,
             "relop": attr.relop.value, "requestable": attr.requestable.value,
             "consumable": attr.consumable.value, "default": attr.default,
             "urgency": attr.urgency}
    assert shown[column] == fields[column] != COMPLEX_BASE[column]


def test_a_bad_complex_column_is_refused() -> None:
    with pytest.raises(ComplexError):
        parse_complex_line("lic lic INTEGER <= YES NO 0 0")


RQS_SAMPLE = """{
   name         limits
   description  "one of each"
   enabled      FALSE
   limit        name r1 users alice projects p1 pes mpi queues all.q hosts vm to slots=2
}
"""


def test_each_rqs_word_is_taken() -> None:
    rule_set = parse_rule_sets(RQS_SAMPLE)[0]
    rule = rule_set.rules[0]
    assert (rule_set.name, rule_set.enabled) == ("limits", False)
    assert "one of each" in rule_set.description
    assert rule.name == "r1"
    assert {key: rule.filters[key].text() for key in FILTERS} == {
        "users": "alice", "projects": "p1", "pes": "mpi", "queues": "all.q", "hosts": "vm"}
    assert [(limit.name, limit.value) for limit in rule.limits] == [("slots", "2")]
    assert all(row.state != "refused" for row in _rows("sge_resource_quota").values())


def test_rqs_rows_that_differ_are_refused_where_8_1_9_takes_them() -> None:
    """The `differs` notes of `to` and `name`: a rule without `to`, two rules of one
    name (8.1.9 takes both)."""
    for text in ("limit users alice\n", "limit name r to slots=1\n   limit name r to slots=2\n"):
        with pytest.raises(RqsFormatError):
            parse_rule_sets("{\n   name s\n   enabled TRUE\n   " + text + "}\n")


SHARETREE_SAMPLE = """id=0
name=Root
type=0
shares=1
childnodes=1,2
id=1
name=p1
type=0
shares=80
childnodes=NONE
id=2
name=alice
type=0
shares=20
childnodes=NONE
"""


def test_each_share_tree_field_is_taken() -> None:
    assert tuple(_rows("share_tree")) == SHARETREE_FIELDS
    assert all(row.state != "refused" for row in _rows("share_tree").values())
    root = parse_sharetree(SHARETREE_SAMPLE)
    assert root is not None
    assert sharetree_problem(root, users=["alice"], projects=["p1"]) is None
    project, user = root.children
    assert (project.name, project.shares, project.type) == ("p1", 80, 1)  # type set, as 8.1.9
    assert (user.name, user.shares, user.type) == ("alice", 20, 0)


def test_share_tree_node_defined_twice_is_refused() -> None:
    """The `differs` note of `childnodes`."""
    twice = SHARETREE_SAMPLE.replace("childnodes=1,2", "childnodes=1,1")
    with pytest.raises(ConfError, match="specified twice|more than one"):
        parse_sharetree(twice)


def test_sge_request_files_are_read_in_8_1_9_order(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The three files of sge_request(5), cell's first, then the home's, then the
    working directory's; qsub and qrsh/qlogin/qsh read them with the same function."""
    import clients.qrsh.main as qrsh_main
    from clients.qsub.main import default_request_texts
    root, home, cwd = tmp_path / "root", tmp_path / "home", tmp_path / "work"
    (root / "c1" / "common").mkdir(parents=True)
    home.mkdir()
    cwd.mkdir()
    (root / "c1" / "common" / "sge_request").write_text("-N cell\n")
    (home / ".sge_request").write_text("-N home\n")
    (cwd / ".sge_request").write_text("-N cwd\n")
    for name in ("PYGE_ROOT", "PYGE_CELL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SGE_ROOT", str(root))
    monkeypatch.setenv("SGE_CELL", "c1")
    assert default_request_texts(str(cwd), str(home)) == ["-N cell\n", "-N home\n", "-N cwd\n"]
    assert qrsh_main.default_request_texts is default_request_texts
    assert all(_rows("sge_request")[name].state == "as 8.1.9" for name in SGE_REQUEST_FILES)



def test_sge_qquota_files_are_read_in_8_1_9_order(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The two files of sge_qquota(5): the cell's, then the home's."""
    from clients.qquota import option_files
    common, home = tmp_path / "common", tmp_path / "home"
    common.mkdir()
    home.mkdir()
    (common / "sge_qquota").write_text("-u alice\n")
    (home / ".sge_qquota").write_text("# mine\n-xml\n")
    monkeypatch.setenv("HOME", str(home))
    assert option_files(common) == [["-u", "alice"], ["-xml"]]
    assert all(_rows("sge_qquota")[name].state == "as 8.1.9" for name in SGE_QQUOTA_FILES)


def test_builtin_complexes_are_8_1_9s_and_their_values_exist() -> None:
    """A new cell's attributes are 8.1.9's; each `as 8.1.9` one has its value where
    8.1.9 has one: a load value our execd reports as 8.1.9's did, or a queue instance's
    or host's value; the rest are reported by neither."""
    builtins = _builtin_complexes()
    assert [attr.name for attr in default_complexes()] == builtins
    reported = set(format_load({"arch": "lx-amd64", "num_proc": 2, "load": (0.1, 0.2, 0.3),
                                "mem_total": 2 << 30, "mem_free": 1 << 30, "swap_total": 0,
                                "swap_free": 0, "cpu": 5.0, "topology": [[2, 2]]}))
    assert reported == set(_load_values_of_8_1_9())
    queue_values = set(QUEUE_RESOURCES) | {"qname", "hostname", "slots"}
    rows = _rows("complex")
    for name in builtins:
        assert rows[name].state == "as 8.1.9", name
        if "never reported" in rows[name].notes:
            assert name not in reported | queue_values, name
        else:
            assert name in reported | queue_values, name
