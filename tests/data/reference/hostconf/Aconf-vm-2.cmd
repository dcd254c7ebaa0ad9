$ qconf -Aconf files/Mconf-vm/vm
