$ qconf -rattr exechost projects nosuch vm
