$ qconf -Aprj Aprj-acl-02.input
