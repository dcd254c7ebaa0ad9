$ qconf -Mconf files/Mconf-unknown-attr/vm
