$ qconf -Aprj Aprj-acl-and-xacl-same.input
