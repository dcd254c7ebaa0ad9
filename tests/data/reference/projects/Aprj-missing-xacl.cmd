$ qconf -Aprj Aprj-missing-xacl.input
