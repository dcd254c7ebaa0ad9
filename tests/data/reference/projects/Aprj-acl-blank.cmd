$ qconf -Aprj Aprj-acl-blank.input
