$ qconf -aattr exechost projects p1 vm
