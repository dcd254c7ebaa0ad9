$ qconf -Aprj Aprj-acl-06.input
