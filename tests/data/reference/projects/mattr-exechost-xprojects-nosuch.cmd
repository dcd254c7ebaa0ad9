$ qconf -mattr exechost xprojects nosuch vm
