$ qconf -Aprj Aprj-missing-acl.input
