$ qconf -mattr resource_quota enabled true nosuchset
