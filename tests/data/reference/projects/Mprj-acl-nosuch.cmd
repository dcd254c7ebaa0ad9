$ qconf -Mprj Mprj-acl-nosuch.input
