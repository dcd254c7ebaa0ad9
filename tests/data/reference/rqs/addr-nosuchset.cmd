$ qconf -aattr resource_quota limit slots=1 nosuchset/1
