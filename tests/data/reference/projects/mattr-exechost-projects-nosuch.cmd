$ qconf -mattr exechost projects nosuch vm
