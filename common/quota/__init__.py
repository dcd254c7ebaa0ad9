"""Resource quota sets (sge_resource_quota(5)): the format (``rqs_format``) and, later, their
evaluation in the placement code."""
