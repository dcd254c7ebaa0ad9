$ qconf -Aprj Aprj-xacl-nosuch.input
