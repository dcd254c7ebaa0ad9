$ qconf -Aprj Aprj-acl-04.input
