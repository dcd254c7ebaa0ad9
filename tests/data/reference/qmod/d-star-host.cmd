$ (as root) qmod -d *@vm
