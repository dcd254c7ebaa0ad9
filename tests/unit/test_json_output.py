"""``-fmt json`` (issue 30 item 2): every command's document validates against the JSON
Schema it names by ``$id``, the schema shipped in clients/schemas under the last part of
that ``$id``; every schema is itself a valid draft 2020-12 schema. The documents are made
from stored data through the commands' own paths (stand-in clients, the views), for jobs
pending, running, finished, in arrays, held, suspended and in error, and for the
configuration objects."""
from __future__ import annotations

import io
import json
import os
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from clients.render import jsondoc
from clients.render.jsondoc import SCHEMA_DIR

SCHEMA_FILES = sorted(f for f in os.listdir(SCHEMA_DIR) if f.endswith(".json"))


def _registry() -> Registry:
    resources = []
    for name in SCHEMA_FILES:
        with open(os.path.join(SCHEMA_DIR, name)) as fh:
            resources.append(Resource.from_contents(json.load(fh)))
    return Registry().with_resources((r.id(), r) for r in resources)  # type: ignore[misc]


REGISTRY = _registry()


def validated(text: str) -> dict[str, Any]:
    """The document of ``text``, checked against the shipped schema its ``$id`` names."""
    doc = json.loads(text)
    assert isinstance(doc, dict) and "$id" in doc, "a document without $id"
    path = jsondoc.schema_path(doc["$id"])
    assert os.path.isfile(path), f"{doc['$id']} names no shipped schema"
    with open(path) as fh:
        schema = json.load(fh)
    assert schema["$id"] == doc["$id"]
    validator = jsonschema.Draft202012Validator(
        schema, registry=REGISTRY, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    return doc


# --------------------------------------------------------------------------- the schemas

@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_every_schema_is_a_valid_2020_12_schema_named_by_its_id(name: str) -> None:
    with open(os.path.join(SCHEMA_DIR, name)) as fh:
        schema = json.load(fh)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == jsondoc.schema_id(name)


def test_a_document_naming_an_unshipped_schema_fails() -> None:
    with pytest.raises(AssertionError, match="names no shipped schema"):
        validated(json.dumps(jsondoc.document("nothing-1.json", {})))
    with pytest.raises(AssertionError, match="without"):
        validated("{}")


def test_every_renderer_names_a_shipped_schema_and_every_schema_is_used() -> None:
    from clients.render.jsondoc import qacct, qconf, qhost, qquota, qstat
    named = {qacct.SCHEMA, qconf.SCHEMA, qhost.SCHEMA, qquota.SCHEMA, qstat.LISTING_SCHEMA,
             qstat.CQUEUE_SCHEMA, qstat.DETAIL_SCHEMA}
    assert named == set(SCHEMA_FILES)


def test_the_schemas_are_package_data() -> None:
    text = open(os.path.join(os.path.dirname(SCHEMA_DIR), "..", "pyproject.toml")).read()
    assert '"schemas/*.json"' in text


# --------------------------------------------------------------------------- qstat

from clients import qstat as qs  # noqa: E402
from tests.unit.test_qstat_listing import StandIn, listing  # noqa: E402
from tests.unit.test_qstat_xml_states import g_t_reply, states_reply  # noqa: E402
from tests.unit.test_views import cluster  # noqa: E402


@pytest.fixture(autouse=True)
def _in_utc(utc: None) -> None:
    """Local times as UTC (the text views' dates; the documents are UTC anyway)."""


LISTINGS = [[], ["-f"], ["-r"], ["-ext"], ["-urg"], ["-pri"], ["-f", "-F"], ["-f", "-explain", "E"],
            ["-g", "d"], ["-g", "t"], ["-f", "-g", "t"], ["-t"], ["-f", "-r", "-ext", "-urg", "-pri"],
            ["-ncb", "-r"]]


@pytest.mark.parametrize("extra", LISTINGS, ids=" ".join)
def test_qstat_listings_of_every_job_state_validate(extra: list[str]) -> None:
    text, _ = listing(["-u", "*", "-s", "prsz", "-fmt", "json", *extra], states_reply())
    doc = validated(text)
    assert doc["$id"].endswith("/qstat-1.json") and doc["full"] == ("-f" in extra)


def _all_jobs(doc: dict[str, Any]) -> list[dict[str, Any]]:
    running = doc.get("jobs_running") or [j for q in doc.get("queues") or [] for j in q["jobs"]]
    return running + doc["jobs_pending"] + doc["jobs_finished"]


def test_qstat_document_holds_what_the_table_shows() -> None:
    """Each line of the text table is one entry, its state letters and booleans agree."""
    text, _ = listing(["-u", "*", "-s", "prsz"], states_reply())
    doc = validated(listing(["-u", "*", "-s", "prsz", "-fmt", "json"], states_reply())[0])
    lines = [line.split() for line in text.splitlines()[2:]]
    jobs = _all_jobs(doc)
    assert sorted((int(w[0]), w[4]) for w in lines) == sorted(
        (j["job_number"], j["state"]["letters"]) for j in jobs)
    by_letters = {j["state"]["letters"]: j["state"] for j in jobs}
    assert by_letters["hqw"]["hold"] and by_letters["hqw"]["queued"] and not by_letters["hqw"]["running"]
    assert by_letters["Eqw"]["error"] and by_letters["r"]["running"]
    assert by_letters["s"]["suspended"] and by_letters["z"]["zombie"]
    finished = doc["jobs_finished"]
    assert [j["job_number"] for j in finished] == [233, 234, 236]
    assert finished[2]["pending_tasks"] == "3,4"
    array = [j for j in jobs if j["job_number"] == 241]
    assert {j["task_id"] for j in array} == {1, None}
    assert {j["pending_tasks"] for j in array} == {None, "2,3"}
    running = next(j for j in jobs if j["job_number"] == 236 and j["task_id"] == 1)
    assert running["start_time"] == "2026-11-28T06:53:17Z" and running["queue"] == "all.q@vm"
    assert isinstance(running["priority"], float) and running["slots"] == 1


def test_qstat_f_puts_running_jobs_under_their_instance() -> None:
    doc = validated(listing(["-u", "*", "-f", "-F", "-fmt", "json"], states_reply())[0])
    (queue,) = doc["queues"]
    assert queue["name"] == "all.q@vm" and queue["slots_total"] == 4
    assert queue["state"]["letters"] == "" and queue["state"]["disabled"] is False
    assert {j["job_number"] for j in queue["jobs"]} == {235, 236, 241}


def test_qstat_g_t_and_t_keep_the_master_column() -> None:
    doc = validated(listing(["-u", "*", "-g", "t", "-fmt", "json"], g_t_reply())[0])
    assert "MASTER" in {j.get("master") for j in doc["jobs_running"]}


def test_qstat_g_c_validates() -> None:
    doc = validated(listing(["-u", "*", "-g", "c", "-fmt", "json"])[0])
    (cq,) = doc["cluster_queues"]
    assert cq["name"] == "all.q" and cq["total"] == 4 and cq["used"] == 3


@pytest.mark.parametrize("argv", [["-fmt", "yaml"], ["-fmt", "json", "-xml"], ["-xml", "-fmt", "plain"]])
def test_qstat_refuses_another_format_or_xml_with_usage(argv: list[str]) -> None:
    with pytest.raises(qs.QstatExit) as stop:
        qs.parse_args(argv)
    assert stop.value.usage and stop.value.status == 1 and "-fmt" in stop.value.message


def test_qstat_fmt_plain_is_the_text_view_and_help_lists_fmt() -> None:
    assert listing(["-u", "*", "-fmt", "plain"])[0] == listing(["-u", "*"])[0]
    assert "[-fmt plain|json]" in qs.USAGE
    assert qs.USAGE.index("[-fmt") > qs.USAGE.index("[-xml]")


class DetailStandIn(StandIn):
    """What qstat -j asks: the jobs (all, then the chosen ones in full), sconf."""

    def jobs(self, ids: list[int] | None = None, **query: Any) -> dict[str, Any]:  # type: ignore[override]
        return super().jobs(**query)


def _details(items: list[str], reply: dict[str, Any]) -> tuple[int, str, str]:
    client = DetailStandIn(reply, cluster())
    out, err = io.StringIO(), io.StringIO()
    rc = qs.job_details(qs.parse_args(["-j", ",".join(items), "-fmt", "json"]), client, out, err)  # type: ignore[arg-type]
    return rc, out.getvalue(), err.getvalue()


def test_qstat_j_of_every_job_state_validates() -> None:
    items = ["233", "234", "235", "236", "237", "238", "241", "244"]
    rc, text, _ = _details(items, states_reply())
    doc = validated(text)
    assert rc == 0 and [j["job_number"] for j in doc["jobs"]] == [int(i) for i in items]
    arr = next(j for j in doc["jobs"] if j["job_number"] == 236)
    assert arr["job_array_tasks"] == "1-4:1" and {t["task_id"] for t in arr["ja_tasks"]} >= {1, 2}
    assert all(t["running"] for t in arr["ja_tasks"] if t["task_id"] in (1, 2))
    held = next(j for j in doc["jobs"] if j["job_number"] == 237)
    assert held["submission_time"] == "2026-11-28T06:53:14Z" and held["owner"] == "sgeuser"
    error = next(j for j in doc["jobs"] if j["job_number"] == 238)
    assert error["cwd"] == "/nonexistent/dir"
    assert any("can't chdir" in r for t in error["ja_tasks"] for r in t["error_reasons"])


def test_qstat_j_of_unknown_jobs_exits_1_with_a_document() -> None:
    rc, text, err = _details(["999999"], states_reply())
    assert rc == 1 and validated(text)["unknown_jobs"] == ["999999"]
    assert err.startswith("Following jobs do not exist")


# --------------------------------------------------------------------------- qhost

from clients import qhost as qh  # noqa: E402
from tests.unit.test_views import reference_reply  # noqa: E402


def _qhost(argv: list[str], cluster_reply: dict[str, Any] | None = None) -> str:
    args = qh.parse_args([*argv, "-fmt", "json"], lambda name: True)
    reply = reference_reply() if args.jobs else None
    return qh.render(args, cluster() if cluster_reply is None else cluster_reply, reply)


@pytest.mark.parametrize("argv", [[], ["-q"], ["-j"], ["-q", "-j"], ["-ncb"], ["-u", "sgeuser"]],
                         ids=" ".join)
def test_qhost_validates(argv: list[str]) -> None:
    doc = validated(_qhost(argv))
    names = [h["name"] for h in doc["hosts"]]
    assert names == ["global", "vm"]
    vm = doc["hosts"][1]
    assert isinstance(vm["num_proc"], int) and isinstance(vm["mem_total"], float)
    assert ("m_core" in vm) == ("-ncb" not in argv)
    assert ("queues" in vm) == ("-q" in argv)


def test_qhost_j_lists_the_running_jobs_of_the_host() -> None:
    vm = validated(_qhost(["-j"]))["hosts"][1]
    assert sorted((j["job_number"], j["task_id"]) for j in vm["jobs"]) == [(95, None), (97, 1), (97, 2)]
    assert all(j["master"] and j["state"]["running"] for j in vm["jobs"])


def test_qhost_F_types_each_value_by_its_complex_type() -> None:
    """Every -F line of 8.1.9's capture (tests/data/reference/qhost-F.out), typed."""
    from clients.render.jsondoc.qhost import render_hosts_json
    from tests.unit.test_render_qhost import hosts
    vm = validated(render_hosts_json(hosts(), show_resources=True))["hosts"][1]
    by_name = {r["name"]: r for r in vm["resources"]}
    assert by_name["arch"]["value"] == "lx-amd64" and by_name["arch"]["type"] == "STRING"
    assert by_name["mem_total"]["type"] == "MEMORY"
    assert by_name["mem_total"]["value"] == vm["mem_total"] > 1024 ** 3
    assert by_name["num_proc"]["value"] == vm["num_proc"] == 2
    assert [r["text"] for r in vm["resources"]][0] in open(
        "tests/data/reference/qhost-F.out").read()
    named = validated(render_hosts_json(hosts(), resource_names=["arch"]))["hosts"][1]
    assert [r["name"] for r in named["resources"]] == ["arch"]


@pytest.mark.parametrize("argv", [["-fmt", "csv"], ["-xml", "-fmt", "json"]])
def test_qhost_refuses_another_format_or_xml(argv: list[str]) -> None:
    with pytest.raises(qh.QhostExit) as stop:
        qh.parse_args(argv, lambda name: True)
    assert stop.value.usage and "-fmt" in stop.value.message
    assert "[-fmt plain|json]" in qh.USAGE


# --------------------------------------------------------------------------- qacct

from pathlib import Path  # noqa: E402

from clients.qacct import main as qacct  # noqa: E402
from tests.unit.test_qacct import acct, _record  # noqa: E402,F401
from common.accounting import append_records  # noqa: E402


def _qacct(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = qacct.main([*args, "-fmt", "json"])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("argv", [[], ["-j"], ["-o"], ["-o", "-q", "-h"], ["-slots", "-pe"],
                                  ["-o", "sgeuser"]], ids=" ".join)
def test_qacct_validates(argv: list[str], acct: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _qacct(capsys, "-f", str(acct), *argv)
    doc = validated(out)
    assert rc == 0 and not err
    assert ("jobs" in doc) == ("-j" in argv) and "summary" in doc


def test_qacct_summary_is_the_tables(acct: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = qacct.main(["-f", str(acct), "-o"]), capsys.readouterr().out
    doc = validated(_qacct(capsys, "-f", str(acct), "-o")[1])
    table = [line.split() for line in text[1].splitlines()[2:]]
    assert [(r["columns"]["owner"], round(r["wallclock"])) for r in doc["summary"]["rows"]] == [
        (w[0], int(w[1])) for w in table]
    assert doc["summary"]["columns"] == ["owner"] and not doc["summary"]["total_system_usage"]


def test_qacct_j_types_every_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "accounting"
    append_records(path, [_record(job_number=100, task_number=3, failed=1, exit_status=143),
                          _record(arid=12, ar_submission_time=86400 * 3, start_time=0, end_time=0)])
    rc, out, _ = _qacct(capsys, "-f", str(path), "-j")
    first, second = validated(out)["jobs"]
    assert rc == 0 and first["job_number"] == 100 and first["task_number"] == 3
    assert first["failed_reason"] == "assumedly before job" and first["exit_signal"] == "Terminated"
    assert second["arid"] == 12 and second["ar_submission_time"] == "1970-01-04T00:00:00Z"
    assert second["start_time"] is None and second["task_number"] is None
    assert isinstance(second["cpu"], float) and isinstance(second["slots"], int)


def test_qacct_j_of_an_unknown_job(acct: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _qacct(capsys, "-f", str(acct), "-j", "999999")
    assert rc == 1 and validated(out)["jobs"] == [] and err == "error: job id 999999 not found\n"


def test_qacct_refuses_another_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert qacct.main(["-fmt", "xml"]) == 1
    err = capsys.readouterr().err
    assert err.startswith('error: unknown output format "xml"') and "[-fmt plain|json]" in err


# --------------------------------------------------------------------------- qquota

def test_qquota_rows_of_the_8_1_9_capture_validate() -> None:
    """The rows of tests/data/reference/rqs/qquota-root-u-all.out as a document."""
    from clients.render.jsondoc.qquota import render_rows_json
    from common.placement.job import placement_job
    from common.placement.quotas import quota_context
    from common.quota.report import Selection, quota_rows
    from common.quota.rqs_format import parse_rule_sets
    from tests.unit.test_quota_evaluate import ATTRS, rule_set_pairs
    rqs = Path(__file__).parents[1] / "data" / "reference" / "rqs"
    sets = parse_rule_sets((rqs / "qquota-rulesets.input").read_text())
    conf = {"rqs": {rs.name: rule_set_pairs(rs) for rs in sets}, "userset": {}}
    jobs = {1: placement_job({"job_id": 1, "owner": "sgeuser",
                              "opts": {"hard_resources": {"compiler_lic": "1"}}}),
            2: placement_job({"job_id": 2, "owner": "sgeuser", "opts": {}})}
    holding = [{"job_id": j, "granted": [["all.q", "vm", 1]]} for j in (1, 2)]
    ctx = quota_context(conf, ATTRS, {}, {}, jobs, holding)
    assert ctx is not None
    rows = quota_rows(ctx.rule_sets, ctx.usage, ctx.names, lambda n, t, h: t, Selection(users=None))
    doc = validated(render_rows_json(rows))
    table = (rqs / "qquota-root-u-all.out").read_text().splitlines()[2:]
    assert [r["rule"] for r in doc["rules"]] == [line.split()[0] for line in table]
    for entry, line in zip(doc["rules"], table):
        assert f"{entry['resource']}=" in line.split()[1] and isinstance(entry["used"], float)
        assert " ".join(f"{f['kind']} {f['value']}" for f in entry["filters"]) in line
    assert all(str(int(e["limit_value"])) == e["limit"] for e in doc["rules"])
    assert validated(render_rows_json([]))["rules"] == []


@pytest.mark.parametrize("argv", [["-fmt", "yaml"], ["-xml", "-fmt", "json"], ["-fmt"]])
def test_qquota_refuses_another_format_or_xml(argv: list[str]) -> None:
    from clients import qquota
    with pytest.raises(qquota.QquotaExit) as stop:
        lists, xml, _ = qquota.parse_sources([argv])
        qquota.output_format(lists, xml)
    assert stop.value.message.startswith(qquota.USAGE) and "-fmt" in stop.value.message
    assert "[-fmt plain|json]" in qquota.USAGE
    lists, xml, _ = qquota.parse_sources([["-fmt", "yaml"], ["-fmt", "json", "-u", "*"]])
    assert qquota.output_format(lists, xml) and lists["users"] == ["*"]


# --------------------------------------------------------------------------- -help

HELP_8_1_9 = Path(__file__).parents[1] / "data" / "reference" / "help"


@pytest.mark.parametrize("command", ["qstat", "qhost", "qquota", "qacct", "qconf"])
def test_help_is_8_1_9s_then_fmt(command: str) -> None:
    """-help: 8.1.9's text (tests/data/reference/help), then our -fmt line."""
    import importlib
    module = importlib.import_module({"qacct": "clients.qacct.options",
                                      "qconf": "clients.qconf.help"}.get(command, f"clients.{command}"))
    text = getattr(module, "HELP_WITH_FMT" if command == "qconf" else "USAGE")
    captured = (HELP_8_1_9 / f"{command}-help.out").read_text()
    assert text.startswith(captured)
    rest = text[len(captured):]
    assert rest.startswith("\n") and rest.count("\n") == 2 and "[-fmt plain|json]" in rest


# --------------------------------------------------------------------------- qconf

from clients.qconf import main as qconf_main  # noqa: E402
from clients.qconf.base import QconfError, Session  # noqa: E402
from common.objects_conf import normalize_object, template  # noqa: E402


def _with(pairs: list[list[str]], **values: str) -> list[list[str]]:
    return [[k, values.get(k, v)] for k, v in pairs]


class ConfStandIn:
    """The stored configuration qconf's show options read (as the qmaster keeps it)."""

    class user:
        name = "root"

    def __init__(self, **stored: dict[str, Any]) -> None:
        from common.quota.rqs_format import parse_rule_sets, rule_set_pairs
        from common.resource.complexes import default_complexes, rows_of
        queue = _with(template("queue", "all.q"), hostlist="@allhosts vm",
                      slots="1,[vm=4],[@allhosts=2]", h_vmem="INFINITY,[vm=4G]",
                      s_rt="1:00:00", rerun="TRUE", pe_list="make smp")
        rqs = parse_rule_sets("{\nname lic\ndescription \"licences\"\nenabled true\n"
                              "limit users {*} hosts !vm to slots=2,h_vmem=$num_proc*2\n}\n"
                              "{\nname other\nenabled false\nlimit to slots=0\n}")
        self.stored: dict[str, dict[str, Any]] = {
            "queue": {"all.q": normalize_object("queue", queue)},
            "exechost": {"global": template("exechost", "global"),
                         "vm": _with(template("exechost", "vm"), complex_values="slots=4,lic=2")},
            "hgrp": {"@allhosts": _with(template("hostgroup", "@allhosts"), hostlist="vm")},
            "pe": {"smp": template("pe", "smp")},
            "userset": {"arusers": template("userset", "arusers")},
            "project": {"p1": template("project", "p1")},
            "calendar": {"night": template("calendar", "night")},
            "ckpt": {"ck": template("ckpt", "ck")},
            "user": {"sgeuser": template("user", "sgeuser")},
            "sconf": {"global": template("sched")},
            "conf": {"global": template("conf", "global"), "vm": [["mailer", "/bin/mail"]]},
            "manager": {"root": []}, "operator": {}, "adminhost": {"vm": []},
            "submithost": {"vm": []},
            "rqs": {rs.name: rule_set_pairs(rs) for rs in rqs},
            "complex": {"global": rows_of(default_complexes())},
            "sharetree": {},
            **stored,
        }

    def conf_get(self, kind: str) -> dict[str, Any]:
        return self.stored.get(kind, {})

    def cluster(self, **_: Any) -> dict[str, Any]:
        return {"hosts": [{"name": "vm", "load": {"num_proc": "2", "load_avg": "0.5"}}],
                "global_load": {}}


def _qconf(argv: list[str], capsys: pytest.CaptureFixture[str],
           stand_in: ConfStandIn | None = None) -> tuple[int, str, str]:
    stand_in = stand_in or ConfStandIn()
    try:
        rc = qconf_main.run(argv, Session(lambda: stand_in))  # type: ignore[arg-type,return-value]
    except QconfError as exc:
        rc = exc.code
        print(exc.message, file=__import__("sys").stderr)
    out, err = capsys.readouterr()
    return rc, out, err


QCONF_SHOWS = [["-sq", "all.q"], ["-sq"], ["-se", "vm"], ["-se", "global"], ["-shgrp", "@allhosts"],
               ["-sp", "smp"], ["-su", "arusers"], ["-ssconf"], ["-sconf"], ["-sconf", "vm"],
               ["-sconf", "global,vm"], ["-sprj", "p1"], ["-scal", "night"], ["-sckpt", "ck"],
               ["-suser", "sgeuser"], ["-sql"], ["-sel"], ["-shgrpl"], ["-spl"], ["-sm"], ["-so"],
               ["-sul"], ["-sh"], ["-ss"], ["-srqsl"], ["-sprjl"], ["-scall"], ["-sckptl"],
               ["-suserl"], ["-sconfl"], ["-scel"], ["-sc"], ["-sce", "slots,h_vmem"], ["-srqs"],
               ["-srqs", "lic"], ["-sstree"], ["-shgrp_tree", "@allhosts"],
               ["-shgrp_resolved", "@allhosts"], ["-sobjl", "queue", "slots", "1"]]


@pytest.mark.parametrize("argv", QCONF_SHOWS, ids=" ".join)
def test_qconf_shows_validate(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _qconf(["-fmt", "json", *argv], capsys)
    doc = validated(out)
    assert doc["option"] == argv[0] and doc["argument"] == (" ".join(argv[1:]) or None)
    # an empty list (-so) or no share tree: the text option's message and exit status
    assert (rc, bool(err)) == ((1, True) if argv in (["-so"], ["-sstree"]) else (0, False)), err


def test_qconf_sq_types_every_attribute_with_its_host_values(capsys: pytest.CaptureFixture[str]) -> None:
    (queue,) = validated(_qconf(["-sq", "all.q", "-fmt", "json"], capsys)[1])["objects"]
    attrs = queue["attributes"]
    assert queue["name"] == attrs["qname"] == "all.q" and attrs["hostlist"] == ["@allhosts", "vm"]
    assert attrs["slots"] == [{"host": None, "value": 1}, {"host": "vm", "value": 4},
                              {"host": "@allhosts", "value": 2}]
    assert attrs["h_vmem"] == [{"host": None, "value": "INFINITY"},
                               {"host": "vm", "value": 4 * 1024 ** 3}]
    assert attrs["s_rt"] == [{"host": None, "value": 3600}]
    assert attrs["rerun"] == [{"host": None, "value": True}]
    assert attrs["pe_list"] == [{"host": None, "value": ["make", "smp"]}]
    assert attrs["load_thresholds"] == [{"host": None, "value": [{"name": "np_load_avg",
                                                                   "value": "1.75"}]}]
    text = _qconf(["-sq", "all.q"], capsys)[1]  # the same attributes as the text view
    assert [line.split()[0] for line in text.splitlines() if line[0] != " "] == list(attrs)


def test_qconf_other_objects_are_typed(capsys: pytest.CaptureFixture[str]) -> None:
    (sconf,) = validated(_qconf(["-fmt", "json", "-ssconf"], capsys)[1])["objects"]
    assert isinstance(sconf["attributes"]["maxujobs"], int)
    (vm,) = validated(_qconf(["-fmt", "json", "-se", "vm"], capsys)[1])["objects"]
    assert vm["attributes"]["complex_values"] == [{"name": "slots", "value": "4"},
                                                  {"name": "lic", "value": "2"}]
    assert {"name": "num_proc", "value": "2"} in vm["attributes"]["load_values"]
    doc = validated(_qconf(["-fmt", "json", "-sconf", "global,vm"], capsys)[1])
    assert [o["name"] for o in doc["objects"]] == ["global", "vm"]
    conf = doc["objects"][0]["attributes"]
    assert conf["min_uid"] == 1000 and conf["load_report_time"] == 40
    assert conf["mailer"] == "/usr/bin/mail"
    (rs,) = validated(_qconf(["-fmt", "json", "-srqs", "lic"], capsys)[1])["rule_sets"]
    assert rs["enabled"] is True and rs["description"] == "licences"
    (rule,) = rs["rules"]
    assert rule["filters"]["users"] == {"scope": ["*"], "xscope": [], "expand": True}
    assert rule["filters"]["hosts"] == {"scope": [], "xscope": ["vm"], "expand": False}
    assert rule["limits"][1] == {"name": "h_vmem", "value": "$num_proc*2", "dynamic": True}
    entries = validated(_qconf(["-fmt", "json", "-sc"], capsys)[1])["complex_entries"]
    slots = next(e for e in entries if e["name"] == "slots")
    assert slots["type"] == "INT" and slots["consumable"] == "YES"


def test_qconf_host_group_views(capsys: pytest.CaptureFixture[str]) -> None:
    cell = ConfStandIn(hgrp={"@allhosts": [["group_name", "@allhosts"], ["hostlist", "@sub vm"]],
                             "@sub": [["group_name", "@sub"], ["hostlist", "h1 h2"]]})
    tree = validated(_qconf(["-fmt", "json", "-shgrp_tree", "@allhosts"], capsys, cell)[1])
    hosts = validated(_qconf(["-fmt", "json", "-shgrp_resolved", "@allhosts"], capsys, cell)[1])
    assert tree["hostgroup_tree"] == {"name": "@allhosts", "children": [
        {"name": "@sub", "children": [{"name": "h1", "children": []},
                                      {"name": "h2", "children": []}]},
        {"name": "vm", "children": []}]}
    assert hosts["names"] == ["h1", "h2", "vm"]
    matching = validated(_qconf(["-fmt", "json", "-sobjl", "queue", "rerun", "T*"], capsys)[1])
    assert matching["names"] == ["all.q"]


def test_qconf_names_not_found_are_missing_with_the_text_message(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _qconf(["-fmt", "json", "-sq", "all.q,nosuch.q"], capsys)
    doc = validated(out)
    assert rc == 1 and doc["missing"] == ["nosuch.q"] and [o["name"] for o in doc["objects"]] == ["all.q"]
    assert err == _qconf(["-sq", "nosuch.q"], capsys)[2]


@pytest.mark.parametrize("argv, words", [
    (["-fmt", "yaml", "-sql"], 'unknown output format "yaml"'),
    (["-fmt", "json", "-aq", "x.q"], 'option "-aq" has no JSON form'),
    (["-fmt", "json", "-Mq", "file"], 'option "-Mq" has no JSON form'),
    (["-fmt", "json", "-sql", "-sel"], "one option at a time"),
    (["-sql", "-fmt"], 'no option argument provided to "-fmt"')])
def test_qconf_refuses_what_has_no_json_form(argv: list[str], words: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _qconf(argv, capsys)
    assert rc == 1 and out == "" and words in err


def test_qconf_fmt_plain_is_the_text_view(capsys: pytest.CaptureFixture[str]) -> None:
    assert _qconf(["-fmt", "plain", "-sq", "all.q"], capsys) == _qconf(["-sq", "all.q"], capsys)
