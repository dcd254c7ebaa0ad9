$ qconf -Aprj Aprj-acl-comma-blank.input
