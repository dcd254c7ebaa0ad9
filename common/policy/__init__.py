"""The scheduling policy: who runs next (sge_priority(5), sched_conf(5), share_tree(5)).
Pure: see ``common.policy.model`` for the records it takes and gives."""
