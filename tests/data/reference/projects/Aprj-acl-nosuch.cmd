$ qconf -Aprj Aprj-acl-nosuch.input
