$ qconf -mattr exechost projects p1 vm
