$ qconf -rattr exechost projects p1 vm
