$ qconf -Aprj Aprj-acl-05.input
