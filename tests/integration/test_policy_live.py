"""The scheduling policy on a live cell: on a full cell, the job with the higher priority
starts first though it came later (``weight_priority 1`` and ``-p -100`` on the first),
and ``qstat -pri``, ``-urg`` and ``-ext`` show the qmaster's policy figures."""
from __future__ import annotations

import subprocess
from typing import Any

from clients.api import Client
from deploy.cell import LocalCell
from tests.commands import command
from tests.integration.cellutil import sleeper, wait_for

SLOTS = 4  # live_cell's


def qstat(*args: str) -> list[str]:
    done = subprocess.run(command("qstat") + ["-u", "*", *args], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def run(name: str, *args: str) -> None:
    done = subprocess.run(command(name) + list(args), capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr


def rows(lines: list[str]) -> dict[int, list[str]]:
    """Job lines by job id (the header and ruler left out)."""
    return {int(line.split()[0]): line.split() for line in lines[2:] if line.strip()}


def states(cl: Client, job_ids: list[int]) -> dict[int, str]:
    return {int(t["job_id"]): str(t["state"]) for t in cl.jobs(job_ids)["tasks"]}


def set_sconf(cl: Client, **values: str) -> None:
    pairs = cl.conf_get("sconf")["global"]
    cl.conf_put("sconf", "global", [[k, values.get(k, v)] for k, v in pairs], "modify")


def test_the_later_job_with_the_higher_priority_starts_first(live_cell: LocalCell) -> None:
    with Client(live_cell.cell) as cl:
        set_sconf(cl, weight_priority="1.000000")
        blockers = cl.submit([sleeper(300) for _ in range(SLOTS)])
        wait_for(lambda: set(states(cl, blockers).values()) == {"running"}, 30,
                 "the blockers to run")
        [low] = cl.submit([sleeper(300, priority=-100, job_name="low")])
        [high] = cl.submit([sleeper(300, job_name="high")])

        figures: dict[Any, Any] = cl.jobs([low, high], priorities=True)["priorities"]
        assert figures[high]["prio"] > figures[low]["prio"]
        assert figures[high]["npprior"] > figures[low]["npprior"]
        assert figures[low]["nurg"] >= figures[high]["nurg"]  # it has waited longer

        pri = rows(qstat("-pri"))
        assert pri[high][1] == f"{figures[high]['prio']:7.5f}".strip()
        # job-ID prior nurg npprior ntckts ppri name user state
        assert pri[low][2:6] == [f"{figures[low]['nurg']:.5f}",
                                 f"{figures[low]['npprior']:.5f}",
                                 f"{figures[low]['ntckts']:.5f}", "-100"]
        assert [line.split()[0] for line in qstat("-s", "p")[2:]] == [str(high), str(low)]
        urg = rows(qstat("-urg"))
        assert urg[low][3] == f"{figures[low]['urg'][0]:.0f}"
        ext = qstat("-ext")
        assert "ntckts" in ext[0] and "tckts" in ext[0]
        assert rows(ext)[low][2] == f"{figures[low]['ntckts']:.5f}"

        subprocess.run(command("qdel") + [str(blockers[0])], check=True, timeout=30,
                       capture_output=True)
        wait_for(lambda: states(cl, [high]).get(high) == "running", 30, "the later job to run")
        assert states(cl, [low])[low] == "pending"
        subprocess.run(command("qdel") + [str(j) for j in (*blockers, low, high)], timeout=30,
                       capture_output=True)


def test_a_bigger_pe_job_goes_first_by_its_urgency(live_cell: LocalCell) -> None:
    """The default configuration: ``-p`` alone orders nothing (weight_priority 0), the
    resource urgency (1000 per slot) does: two slots come free, the later 2-slot job
    takes them, the earlier 1-slot job (job id first, ``-p`` higher) waits."""
    with Client(live_cell.cell) as cl:
        blockers = cl.submit([sleeper(300) for _ in range(SLOTS)])
        wait_for(lambda: set(states(cl, blockers).values()) == {"running"}, 30,
                 "the blockers to run")
        [small] = cl.submit([sleeper(300, job_name="small", priority=10)])
        [big] = cl.submit([sleeper(300, job_name="big", pe=["smp", 2, 2])])
        figures = cl.jobs([small, big], priorities=True)["priorities"]
        assert figures[big]["urg"][1] == 2 * figures[small]["urg"][1]  # rrcontr
        assert figures[big]["prio"] > figures[small]["prio"]
        urg = rows(qstat("-urg"))
        assert urg[big][4] == f"{figures[big]['urg'][1]:.0f}"

        # both slots come free for one pass: the queue takes no jobs while they empty
        run("qmod", "-d", "all.q")
        run("qdel", *map(str, blockers[:2]))
        wait_for(lambda: not states(cl, blockers[:2]), 30, "the two blockers to end")
        run("qmod", "-e", "all.q")
        wait_for(lambda: states(cl, [big]).get(big) == "running", 30, "the 2-slot job to run")
        assert states(cl, [small])[small] == "pending"
        subprocess.run(command("qdel") + [str(j) for j in (*blockers, small, big)], timeout=30,
                       capture_output=True)


def test_sge_share_mon_shows_the_share_tree(live_cell: LocalCell, tmp_path: Any) -> None:
    done = subprocess.run(command("sge_share_mon") + ["-c", "1"], capture_output=True,
                          text=True, timeout=30)
    assert (done.returncode, done.stderr) == (2, "No share tree\n")
    tree = tmp_path / "tree"
    tree.write_text("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1\n"
                    "id=1\nname=default\ntype=0\nshares=10\nchildnodes=NONE\n")
    run("qconf", "-Astree", str(tree))
    done = subprocess.run(command("sge_share_mon") + ["-c", "1", "-h", "-f",
                                                      "node_name,shares,level%,total%"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("node_name\tshares\tlevel%\ttotal%\t\n\n/\t1\t1.000000\t1.000000\t\n"
                           "/default\t10\t1.000000\t1.000000\t\n")
