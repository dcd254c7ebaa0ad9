$ qconf -rattr exechost xprojects NONE vm
