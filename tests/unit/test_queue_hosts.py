"""Which hosts a queue's hostlist names: the whole set (``queue_hosts``) and the one-host
question a registering execd asks (``queue_has_host``) agree."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.cluster import queue_has_host, queue_hosts
from common.objects_conf import ConfError

HOSTS = ["h1", "h2", "h3", "none"]
GROUPS = ["@a", "@b", "@c"]
entries = st.lists(st.sampled_from(HOSTS + GROUPS + ["NONE"]), max_size=5)


@given(hostlist=entries, members=st.fixed_dictionaries({g: entries for g in GROUPS}),
       host=st.sampled_from(HOSTS + GROUPS + ["NONE", "h9"]))
def test_one_host_is_in_the_queue_as_in_the_set_of_its_hosts(
        hostlist: list[str], members: dict[str, list[str]], host: str) -> None:
    pairs = [["qname", "q"], ["hostlist", " ".join(hostlist) or "NONE"]]
    try:
        whole = queue_hosts(pairs, members)
    except ConfError:  # a group that reaches itself: the one-host answer may not need it
        return
    assert queue_has_host(pairs, host, members) == (host in whole)


def test_a_cycle_met_on_the_way_is_the_same_error() -> None:
    pairs = [["qname", "q"], ["hostlist", "@a"]]
    with pytest.raises(ConfError, match="cycle"):
        queue_has_host(pairs, "h1", {"@a": ["@b"], "@b": ["@a"]})
