$ qconf -rattr exechost projects NONE vm
