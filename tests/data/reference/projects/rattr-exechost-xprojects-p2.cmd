$ qconf -rattr exechost xprojects p2 vm
