$ qconf -rattr queue xprojects NONE all.q
