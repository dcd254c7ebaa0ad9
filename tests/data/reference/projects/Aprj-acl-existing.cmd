$ qconf -Aprj Aprj-acl-existing.input
