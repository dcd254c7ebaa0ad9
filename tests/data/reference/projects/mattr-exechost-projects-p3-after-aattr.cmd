$ qconf -mattr exechost projects p3 vm
