$ qconf -Aprj Aprj-acl-03.input
