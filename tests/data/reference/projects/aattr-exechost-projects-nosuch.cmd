$ qconf -aattr exechost projects nosuch vm
