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
