$ qconf -mattr resource_quota enabled TRUE zz_first
