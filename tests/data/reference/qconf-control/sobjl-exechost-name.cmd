$ qconf -sobjl exechost hostname vm
