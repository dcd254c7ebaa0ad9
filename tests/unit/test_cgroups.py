"""The pure parts of execd.cgroups: where the hierarchy is, this process's place in it,
the files' formats, and ``memory.max`` from a job's limits."""
from __future__ import annotations

import math
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from execd.cgroups import (cgroup2_mount, cgroup2_options, flat_keys, io_bytes, memory_limit,
                           own_cgroup, slow_joins, subtree_name)

HYBRID = """\
25 30 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
31 25 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755
32 31 0:27 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw
33 31 0:28 / /sys/fs/cgroup/memory rw,relatime shared:11 - cgroup cgroup rw,memory
"""


def test_the_unified_mount_is_found_among_v1_hierarchies() -> None:
    assert cgroup2_mount(HYBRID) == "/sys/fs/cgroup/unified"
    assert cgroup2_mount(HYBRID.replace("cgroup2 cgroup2", "cgroup cgroup")) is None
    assert cgroup2_mount("") is None


def test_joins_are_slow_unless_the_kernel_favours_dynamic_changes() -> None:
    """favordynmods is a super-block option of cgroup2 (Linux 6.0 and later): without it
    a process joining a cgroup waits for an RCU grace period."""
    features = "nsdelegate\nfavordynmods\nmemory_localevents\n"
    assert cgroup2_options(HYBRID) == {"rw", "nosuid", "nodev", "noexec", "relatime"}
    assert slow_joins(cgroup2_options(HYBRID), features)
    fast = HYBRID.replace("cgroup2 cgroup2 rw", "cgroup2 cgroup2 rw,nsdelegate,favordynmods")
    assert "favordynmods" in cgroup2_options(fast)
    assert not slow_joins(cgroup2_options(fast), features)
    assert not slow_joins(cgroup2_options(HYBRID), "nsdelegate\n")  # a kernel before 6.0
    assert cgroup2_options("") == frozenset()


def test_own_cgroup_is_the_unified_line() -> None:
    assert own_cgroup("4:memory:/a\n0::/user.slice/u.service\n") == "/user.slice/u.service"
    assert own_cgroup("4:memory:/a\n") is None
    assert own_cgroup("0::garbage\n") is None


def test_flat_keyed_files_and_io_stat() -> None:
    assert flat_keys("usage_usec 1500000\nuser_usec 10\nbroken\nx y\n") == \
        {"usage_usec": 1500000, "user_usec": 10}
    assert io_bytes("8:0 rbytes=100 wbytes=20 rios=1 wios=2\n8:16 rbytes=5 wbytes=x\n") == 125


@given(st.text(max_size=300))
def test_parsers_never_raise(text: str) -> None:
    cgroup2_mount(text)
    cgroup2_options(text)
    own_cgroup(text)
    flat_keys(text)
    io_bytes(text)


def test_memory_max_is_the_smaller_of_h_vmem_and_h_rss() -> None:
    assert memory_limit({"h_vmem": 2e9, "h_rss": 1e9, "s_vmem": 5e8}) == 1_000_000_000
    assert memory_limit({"h_vmem": 3e8}) == 300_000_000
    assert memory_limit({"h_vmem": math.inf, "s_rss": 1e6}) is None
    assert memory_limit({}) is None


def test_each_execd_of_each_cell_has_its_own_stable_subtree() -> None:
    a = subtree_name("node1", Path("/cells/a/spool/node1"))
    assert a == subtree_name("node1", Path("/cells/a/spool/node1"))
    assert a != subtree_name("node1", Path("/cells/b/spool/node1"))
    assert a.startswith("node1-")
