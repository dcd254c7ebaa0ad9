$ qconf -Mconf files/Mconf-vm/vm
