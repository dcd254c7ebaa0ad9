$ qconf -mattr RESOURCE_QUOTA enabled true ruleset_1
