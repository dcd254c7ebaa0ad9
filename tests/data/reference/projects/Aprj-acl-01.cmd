$ qconf -Aprj Aprj-acl-01.input
