"""Host load values, named and formatted as Grid Engine's execd reports them.

``format_load`` is pure: it takes raw numbers (bytes, load averages, counts) and returns
the ``name -> value`` strings that ``qconf -se <host>`` shows under ``load_values``
(e.g. ``load_avg=0.444824``, ``mem_free=23912.734375M``, ``m_topology=SCC``).
``sample_load`` is the thin sampler around it (psutil, os, /sys).
"""
from __future__ import annotations

import glob
import os
import platform
from collections.abc import Mapping
from typing import Any


MiB = 1024.0 * 1024.0

# uname machine -> Grid Engine architecture string (as $SGE_ROOT/util/arch prints it).
_LINUX_ARCH = {
    "x86_64": "lx-amd64", "amd64": "lx-amd64", "i386": "lx-x86", "i486": "lx-x86",
    "i586": "lx-x86", "i686": "lx-x86", "aarch64": "lx-arm64", "arm64": "lx-arm64",
    "armv7l": "lx-arm", "armv6l": "lx-arm", "ppc64le": "lx-ppc64le", "ppc64": "lx-ppc64",
    "s390x": "lx-s390x", "ia64": "lx-ia64", "riscv64": "lx-riscv64",
}
_DARWIN_ARCH = {"x86_64": "darwin-x64", "arm64": "darwin-arm64"}


def sge_arch(system: str, machine: str) -> str:
    """Grid Engine's architecture name for an OS/machine pair, e.g. ``lx-amd64``."""
    machine = machine.lower()
    if system == "Linux":
        return _LINUX_ARCH.get(machine, f"lx-{machine}")
    if system == "Darwin":
        return _DARWIN_ARCH.get(machine, f"darwin-{machine}")
    return f"{system.lower()}-{machine}"


def host_arch() -> str:
    """The architecture name of this host."""
    return sge_arch(platform.system(), platform.machine())


def topology_string(sockets: list[list[int]]) -> str:
    """``m_topology`` from sockets given as lists of threads-per-core: [[1, 1]] -> "SCC".

    Grid Engine writes S per socket, C per core and, only for cores with more than one
    hardware thread, one T per thread ([[2, 2]] -> "SCTTCTT").
    """
    parts: list[str] = []
    for cores in sockets:
        parts.append("S")
        for threads in cores:
            parts.append("C" + ("T" * threads if threads > 1 else ""))
    return "".join(parts)


def _fmt(value: float) -> str:
    return f"{value:f}"


def _mem(value_bytes: float) -> str:
    return f"{value_bytes / MiB:f}M"


def _memory_values(raw: Mapping[str, Any]) -> dict[str, str]:
    mem_total, mem_free = raw["mem_total"], raw["mem_free"]
    swap_total, swap_free = raw["swap_total"], raw["swap_free"]
    return {
        "mem_free": _mem(mem_free),
        "swap_free": _mem(swap_free),
        "virtual_free": _mem(mem_free + swap_free),
        "mem_total": _mem(mem_total),
        "swap_total": _mem(swap_total),
        "virtual_total": _mem(mem_total + swap_total),
        "mem_used": _mem(mem_total - mem_free),
        "swap_used": _mem(swap_total - swap_free),
        "virtual_used": _mem(mem_total + swap_total - mem_free - swap_free),
    }


def _topology_values(raw: Mapping[str, Any]) -> dict[str, str]:
    sockets: list[list[int]] = raw["topology"]
    topology = topology_string(sockets)
    return {
        "m_topology": topology,
        # Without core binding no core is marked in use (lower case), so both agree.
        "m_topology_inuse": raw.get("topology_inuse", topology),
        "m_socket": str(len(sockets)),
        "m_core": str(sum(len(cores) for cores in sockets)),
        "m_thread": str(sum(sum(cores) for cores in sockets)),
    }


def format_load(raw: Mapping[str, Any]) -> dict[str, str]:
    """Grid Engine load values from raw numbers.

    ``raw`` keys: ``arch`` (str), ``num_proc`` (int), ``load`` (1, 5, 15 minute averages),
    ``mem_total``, ``mem_free``, ``swap_total``, ``swap_free`` (bytes), ``cpu`` (percent
    busy), ``topology`` (sockets as lists of threads per core), optionally
    ``topology_inuse`` (str). The order of the result is the order of ``qconf -se``.
    """
    num_proc = int(raw["num_proc"])
    short, medium, long_ = (float(x) for x in raw["load"])
    values = {
        "load_avg": _fmt(medium),
        "load_short": _fmt(short),
        "load_medium": _fmt(medium),
        "load_long": _fmt(long_),
        "arch": raw["arch"],
        "num_proc": str(num_proc),
    }
    values.update(_memory_values(raw))
    values["cpu"] = _fmt(raw["cpu"])
    values.update(_topology_values(raw))
    divisor = max(num_proc, 1)
    for name, load in (("avg", medium), ("short", short), ("medium", medium), ("long", long_)):
        values[f"np_load_{name}"] = _fmt(load / divisor)
    return values


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def sample_topology(sys_cpu: str = "/sys/devices/system/cpu") -> list[list[int]]:
    """Sockets as lists of threads per core, from sysfs (one socket of N cores if absent)."""
    cores: dict[tuple[int, int], int] = {}
    for topo in glob.glob(f"{sys_cpu}/cpu[0-9]*/topology"):
        package = _read_int(f"{topo}/physical_package_id")
        core = _read_int(f"{topo}/core_id")
        if package is None or core is None:
            continue
        cores[(package, core)] = cores.get((package, core), 0) + 1
    if not cores:
        return [[1] * (os.cpu_count() or 1)]
    sockets: dict[int, list[int]] = {}
    for (package, _core), threads in sorted(cores.items()):
        sockets.setdefault(package, []).append(threads)
    return [sockets[p] for p in sorted(sockets)]


def _free_memory(vm: Any) -> int:
    # Grid Engine counts page cache and buffers as free (MemFree + Buffers + Cached).
    return int(vm.free + getattr(vm, "buffers", 0) + getattr(vm, "cached", 0))


def sample_raw() -> dict[str, Any]:
    """The raw numbers ``format_load`` needs, sampled now."""
    import psutil  # here, not at module level: the shepherd zygote imports this module

    vm = psutil.virtual_memory()
    swap = psutil.swap_memory()
    return {
        "arch": host_arch(),
        "num_proc": os.cpu_count() or 1,
        "load": os.getloadavg(),
        "mem_total": vm.total,
        "mem_free": min(_free_memory(vm), vm.total),
        "swap_total": swap.total,
        "swap_free": swap.free,
        # Busy share since the previous call (0.0 on the first call of a process).
        "cpu": psutil.cpu_percent(interval=None),
        "topology": sample_topology(),
    }


def sample_load() -> dict[str, str]:
    """This host's load values as Grid Engine reports them."""
    return format_load(sample_raw())


# np_load_* are the execd's own: 8.1.9 ignores a sensor's value for them and divides the
# (possibly overridden) load_* value by num_proc
_PER_PROCESSOR = {f"np_load_{n}": f"load_{n}" for n in ("avg", "short", "medium", "long")}


def with_sensor_values(builtin: Mapping[str, str], sensed: Mapping[str, str]
                       ) -> dict[str, str]:
    """The host's load values with load sensors' values added (after the built-in ones,
    in the sensors' order) or put in place of a built-in value of the same name; the
    np_load_* values follow an overridden load_* value."""
    values = dict(builtin)
    overridden = False
    for name, value in sensed.items():
        if name in _PER_PROCESSOR:
            continue
        values[name] = value
        overridden = overridden or name in _PER_PROCESSOR.values()
    if overridden:
        try:
            divisor = max(float(values.get("num_proc", "1")), 1.0)
        except ValueError:
            divisor = 1.0
        for per_proc, name in _PER_PROCESSOR.items():
            if name in sensed and per_proc in values:
                try:
                    values[per_proc] = _fmt(float(sensed[name]) / divisor)
                except ValueError:
                    pass  # a load_* that is no number leaves np_load_* as measured
    return values
