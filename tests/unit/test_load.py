"""Load values formatted as Grid Engine reports them (execd/load.py)."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from execd.load import MiB, format_load, sample_load, sample_topology, sge_arch, topology_string

from tests.reference import REFERENCE as _REFERENCE_DIR

REFERENCE = _REFERENCE_DIR / "qconf-se-host.txt"

# The host of qconf-se-host.txt: 2 cores in one socket, 24105.550781M of memory, no swap.
RAW_VM = {
    "arch": "lx-amd64", "num_proc": 2, "load": (0.562012, 0.444824, 0.192383),
    "mem_total": 25276502016, "mem_free": 25074319360, "swap_total": 0, "swap_free": 0,
    "cpu": 28.4, "topology": [[1, 1]],
}


def reference_load_values() -> dict[str, str]:
    """The load_values of the real execd, from the captured ``qconf -se`` output."""
    text = REFERENCE.read_text()
    block = text.split("load_values", 1)[1].split("processors", 1)[0]
    joined = "".join(part.strip().rstrip("\\").strip() for part in block.splitlines())
    return dict(item.split("=", 1) for item in joined.split(","))


def test_format_matches_real_execd_values() -> None:
    assert format_load(RAW_VM) == reference_load_values()


def test_order_is_the_order_of_qconf_se() -> None:
    assert list(format_load(RAW_VM)) == list(reference_load_values())


def test_memory_is_megabytes_with_six_decimals() -> None:
    values = format_load({**RAW_VM, "mem_total": 3 * 1024 * MiB, "mem_free": 512 * MiB,
                          "swap_total": 1024 * MiB, "swap_free": 256 * MiB})
    assert values["mem_total"] == "3072.000000M"
    assert values["mem_used"] == "2560.000000M"
    assert values["swap_used"] == "768.000000M"
    assert values["virtual_total"] == "4096.000000M"
    assert values["virtual_free"] == "768.000000M"
    assert values["virtual_used"] == "3328.000000M"


def test_topology_strings() -> None:
    assert topology_string([[1, 1]]) == "SCC"
    assert topology_string([[2, 2], [2, 2]]) == "SCTTCTTSCTTCTT"
    values = format_load({**RAW_VM, "topology": [[2, 2], [2, 2]], "num_proc": 8})
    assert (values["m_socket"], values["m_core"], values["m_thread"]) == ("2", "4", "8")
    assert values["m_topology_inuse"] == values["m_topology"] == "SCTTCTTSCTTCTT"


def test_architecture_names() -> None:
    assert sge_arch("Linux", "x86_64") == "lx-amd64"
    assert sge_arch("Linux", "aarch64") == "lx-arm64"
    assert sge_arch("Linux", "i686") == "lx-x86"
    assert sge_arch("Linux", "ppc64le") == "lx-ppc64le"


loads = st.floats(min_value=0, max_value=512, allow_nan=False)


@given(short=loads, medium=loads, long_=loads, num_proc=st.integers(1, 256))
def test_np_load_is_load_divided_by_num_proc(short: float, medium: float, long_: float,
                                             num_proc: int) -> None:
    values = format_load({**RAW_VM, "load": (short, medium, long_), "num_proc": num_proc})
    assert values["load_avg"] == values["load_medium"] == f"{medium:f}"
    assert values["np_load_short"] == f"{short / num_proc:f}"
    assert values["np_load_long"] == f"{long_ / num_proc:f}"
    assert values["num_proc"] == str(num_proc)


@given(total=st.integers(0, 2**44), free_share=st.floats(0, 1))
def test_used_plus_free_is_total(total: int, free_share: float) -> None:
    free = int(total * free_share)
    values = format_load({**RAW_VM, "mem_total": total, "mem_free": free})
    used = float(values["mem_used"].rstrip("M"))
    assert abs(used - (total - free) / MiB) < 1e-6 * max(1.0, total / MiB)
    assert all(values[k].endswith("M") for k in ("mem_free", "virtual_total", "swap_used"))


def test_sampler_reports_every_value_with_parsable_numbers() -> None:
    values = sample_load()
    assert list(values) == list(reference_load_values())
    for name in ("load_avg", "np_load_avg", "cpu", "num_proc", "m_core"):
        float(values[name])
    assert float(values["mem_total"].rstrip("M")) > 0
    assert set(values["m_topology"]) <= {"S", "C", "T"}


def test_topology_from_sysfs(tmp_path: Path) -> None:
    for cpu, (package, core) in enumerate([(0, 0), (0, 0), (0, 1), (0, 1)]):
        topo = tmp_path / f"cpu{cpu}" / "topology"
        topo.mkdir(parents=True)
        (topo / "physical_package_id").write_text(f"{package}\n")
        (topo / "core_id").write_text(f"{core}\n")
    assert sample_topology(str(tmp_path)) == [[2, 2]]
