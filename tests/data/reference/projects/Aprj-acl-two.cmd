$ qconf -Aprj Aprj-acl-two.input
