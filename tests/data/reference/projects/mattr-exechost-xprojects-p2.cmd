$ qconf -mattr exechost xprojects p2 vm
