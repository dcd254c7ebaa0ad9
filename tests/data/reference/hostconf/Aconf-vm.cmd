$ qconf -Aconf files/Aconf-vm/vm
