"""The share tree's node types (share_tree(5) ``type``): a user node, or a project node.
A module of their own so that the share tree's file format (common.objects_conf.sharetree,
which every qconf loads) need not load the policy's records (common.policy.model), whose
dataclasses cost each command start about 20 ms."""

USER_NODE, PROJECT_NODE = 0, 1
