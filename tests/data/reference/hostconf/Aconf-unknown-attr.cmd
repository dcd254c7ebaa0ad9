$ qconf -Aconf files/Aconf-unknown-attr/vm
